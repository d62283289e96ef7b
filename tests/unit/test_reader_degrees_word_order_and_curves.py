"""Classes from the blind batch holdout52, on a table of its own (a graduates' survey, not the batch's tables): the
standard abbreviations of degrees and schools in column names (BA, AA, hs); 'the degree dummy' of a table with two
is a question; French and Spanish put a describing word after its thing ('lycée urbain' is 'urban high school');
'l'aire sous la courbe ROC' is ROC AUC; 'the id nor the X columns (a, b)' leaves out the id as well."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.understanding import language
from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def graduates(tmp_path_factory):
    rng = np.random.default_rng(52)
    n = 400
    ba = rng.integers(0, 2, n)
    return saved(tmp_path_factory, "graduates", pd.DataFrame({
        "respondent": np.arange(1, n + 1), "female": rng.integers(0, 2, n), "BA": ba,
        "AA": np.where(ba == 1, 0, rng.integers(0, 2, n)), "urbhs": rng.integers(0, 2, n),
        "credits2yr": rng.integers(0, 60, n), "credits4yr": rng.integers(0, 120, n),
        "income": rng.gamma(3, 12000, n).round(0), "exper": rng.integers(0, 30, n)}))


@pytest.mark.parametrize("text, column", [
    ("Predict whether the respondent holds a bachelor's degree.", "BA"),
    ("Classify who finished an associate degree.", "AA"),
    ("Quiero saber si la persona tiene una licenciatura.", "BA"),
    ("J'aimerais prédire si la personne a fréquenté un lycée urbain.", "urbhs"),
])
def test_a_degree_or_a_school_by_its_name(graduates, text, column):
    got = _read(graduates, text)
    assert got["outcome"] == "ok" and got["target"] == column, got


def test_the_degree_dummy_of_a_table_with_two_is_a_question(graduates):
    got = _read(graduates, "Train a classifier for the degree dummy, i.e. whether the person finished their degree.")
    assert got["outcome"] == "ask" and set(got["candidates"][:2]) == {"BA", "AA"}, got


def test_a_describing_word_comes_first_in_english():
    assert language._translate("le revenu annuel", "fr") == "the annual income"
    assert language._translate("una escuela católica", "es") == "a catholic school"
    assert language._translate("chaque élève", "fr") == "each élève"  # 'each' describes nothing after it


@pytest.mark.parametrize("text", [
    "Prédire BA. Le critère est l'aire sous la courbe ROC, qui doit être d'au moins 0,7.",
    "Predecir BA. El área bajo la curva ROC debe ser al menos 0,7.",
    "Sage BA vorher. Die Fläche unter der ROC-Kurve soll mindestens 0,7 betragen.",
])
def test_the_area_under_the_roc_curve_in_other_languages(graduates, text):
    got = _read(graduates, text)
    assert got["outcome"] == "ok" and got["metric"] == "roc_auc" and got["constraints"] == ["roc_auc >= 0.7"], got


def test_an_item_before_nor_stays_left_out(graduates):
    got = _read(graduates, "Predict BA. Don't use the respondent nor the credit columns (credits2yr and credits4yr).")
    assert got["outcome"] == "ok" and got["excluded"] == ["credits2yr", "credits4yr", "respondent"], got
