"""Two inputs named after 'from', 'using', 'given' or 'with' are the inputs meant, as three or more were: 'predict the
species from its beak and wing measurements' is a model on those columns, not on the whole table. A first name part
said whole names every column it begins ('the beak' for beak_len_mm and beak_width_mm); 'its wing measurements' the one
column it begins; 'body measurements' are the whole animal's. What two words after such a word are not: a source
('a caveat from the audit team: ...'), what is left out ('apart from A and B'), the target ('use A as the label and
everything else'), a list cut short ('from sex, diet and test day'), a pronoun in a clause about cheating."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def birds(tmp_path_factory):
    """Seabirds measured at three colonies."""
    rng = np.random.default_rng(201)
    n = 240
    kind = rng.choice(["tern", "gull", "puffin"], n)
    return saved(tmp_path_factory, "birds", pd.DataFrame({
        "kind": kind, "colony": rng.choice(["north", "cliff", "bay"], n),
        "beak_len_mm": rng.normal(40, 4, n).round(1), "beak_width_mm": rng.normal(12, 2, n).round(1),
        "wing_span_cm": rng.normal(90, 9, n).round(1), "body_weight_g": rng.normal(600, 80, n).round(0),
        "sex": rng.choice(["m", "f"], n), "diet": rng.choice(["fish", "krill"], n),
        "log_weight": rng.normal(6.4, 0.1, n).round(3), "log_span": rng.normal(4.5, 0.1, n).round(3)}))


@pytest.mark.parametrize("said, inputs", [
    ("Predict the kind of each bird from its beak and wing measurements.",
     ["beak_len_mm", "beak_width_mm", "wing_span_cm"]),
    ("Using colony and sex, predict the kind of bird.", ["colony", "sex"]),
    ("Given the diet and the colony, which kind is the bird?", ["colony", "diet"]),
])
def test_two_inputs_named_are_the_inputs(birds, said, inputs):
    got = _read(birds, said)
    assert got["outcome"] == "ok" and got["target"] == "kind" and got["features"] == inputs, got


@pytest.mark.parametrize("said", [
    "Group the birds into 3 clusters based on their body measurements and compare the clusters with the kind.",
    "A caveat from the audit team: the kind and colony are recorded late. Predict the diet with everything else.",
    "Predict the diet with all columns apart from colony and sex.",
    "Use diet as the label and everything else as features.",
    "Predict the diet from kind, colony and beak length.",
])
def test_what_two_words_after_from_are_not(birds, said):
    got = _read(birds, said)
    assert got["outcome"] == "ok", got
    assert got["features"] in ([], ["beak_len_mm", "colony", "kind"]), got


def test_a_transform_prefix_names_no_group(birds):
    got = _read(birds, "Predict the kind of bird. Keep out log_weight, because it is the body weight before taking "
                       "the log, and keep out sex.")
    assert got["outcome"] == "ok" and got["target"] == "kind" and got["excluded"] == ["log_weight", "sex"], got


@pytest.fixture(scope="module")
def plants(tmp_path_factory):
    """Monthly output of two plants coded by number, levels and month-on-month growth."""
    rng = np.random.default_rng(202)
    n = 120
    out41, out77 = 100 + rng.normal(0, 1, n).cumsum(), 80 + rng.normal(0, 1, n).cumsum()
    return saved(tmp_path_factory, "plants", pd.DataFrame({
        "month": pd.date_range("2010-01-01", periods=n, freq="MS").strftime("%Y-%m"), "out41": out41.round(2),
        "out77": out77.round(2), "hrs41": rng.normal(160, 5, n).round(1), "gout41": np.r_[0, np.diff(np.log(out41))].round(4),
        "gout77": np.r_[0, np.diff(np.log(out77))].round(4), "price": 50 + rng.normal(0, 1, n).cumsum()}))


def test_a_question_offers_the_columns_a_said_number_names(plants):
    got = _read(plants, "Can you forecast how fast unit 41 is growing, month over month, for the next 6 months?")
    assert got["outcome"] == "ask" and got["candidates"][0] == "gout41" and set(got["candidates"]) <= {
        "gout41", "out41", "hrs41"}, got
