"""Reader classes found by the second blind batch holdout34, each on sentences and tables of its own: 'the variable
of interest is X', 'col X'; a gloss after a name ('lhours, the log of the hours, on ...', 'the rated column (rated
value of the flat)') names no other column; 'the prices of A, B and C' are price.a, price.b, price.c, and 'which of
the three brands' is the one column of three categories; 'bedrooms' is
bdrms; 'value' fits a sale price and an assessed value alike; '(price, in $1000s)' is money, not seconds; a
parenthesis ends a negation ('(..., not id) (accuracy at least 0.6)'); 'monhts'; a table of numbers asks how far
apart its rows are only where its columns move little from row to row, as a series does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.understanding.language import canonical
from tests.unit.reader_cases import read as _read, saved as _saved

N = 240


@pytest.fixture(scope="module")
def flats(tmp_path_factory):
    """Flats: the rent asked, the value the council rated them at, their logs, rooms and floor area."""
    rng = np.random.default_rng(51)
    rent = rng.uniform(300, 3000, N).round(0)
    rated = (rent * rng.uniform(80, 120, N)).round(0)
    return _saved(tmp_path_factory, "flats", pd.DataFrame({
        "rent": rent, "rated": rated, "lrent": np.log(rent).round(4), "lrated": np.log(rated).round(4),
        "bdrms": rng.integers(1, 5, N), "sqm": rng.uniform(25, 160, N).round(1), "balcony": rng.integers(0, 2, N)}))


@pytest.fixture(scope="module")
def baskets(tmp_path_factory):
    """A shopper's pick of three juice brands and each brand's price and promotion flag on the day."""
    rng = np.random.default_rng(52)
    frame = pd.DataFrame({"pick": rng.choice(["sunny", "tropic", "valley"], N), "shopper": rng.integers(1, 60, N)})
    for brand in ("sunny", "tropic", "valley"):
        frame[f"promo.{brand}"] = rng.integers(0, 2, N)
        frame[f"price.{brand}"] = rng.uniform(1, 4, N).round(2)
    return _saved(tmp_path_factory, "baskets", frame)


@pytest.fixture(scope="module")
def casualties(tmp_path_factory):
    """Monthly casualty counts with no date column: neighbouring rows alike, one noisy count among them."""
    rng = np.random.default_rng(53)
    season = 20 * np.sin(np.arange(N) * 2 * np.pi / 12)
    return _saved(tmp_path_factory, "casualties", pd.DataFrame({
        "killed": (120 + season + rng.normal(0, 5, N)).round(0), "injured": (900 + 5 * season + rng.normal(0, 20, N)).round(0),
        "cyclists": rng.normal(30, 8, N).round(1), "fuel": np.cumsum(rng.normal(0, 0.01, N)) + 1.0}))


@pytest.fixture(scope="module")
def tremors(tmp_path_factory):
    """Tremors, each row drawn on its own: no series, whatever the instruction says of next week."""
    rng = np.random.default_rng(54)
    return _saved(tmp_path_factory, "tremors", pd.DataFrame({
        "depth": rng.uniform(5, 600, N).round(0), "magnitude": rng.uniform(4, 6.5, N).round(1),
        "stations": rng.integers(10, 130, N)}))


def test_the_variable_of_interest_and_col(casualties):
    got = _read(casualties, "The series is monthly. The variable of interest is killed, the monthly number killed on "
                            "the roads. Forecast 6 months ahead.")
    assert (got["outcome"], got["target"], got["horizon"]) == ("ok", "killed", 6)
    got = _read(casualties, "casualty data, col cyclists. need next 3 monhts forecast, one row per month")
    assert (got["outcome"], got["target"], got["horizon"]) == ("ok", "cyclists", 3)


def test_a_gloss_after_a_name_names_no_other_column(flats):
    got = _read(flats, "I need a regression of lrent, the log of the rent, on exactly these columns: bdrms, sqm, "
                       "balcony.")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "lrent", ["balcony", "bdrms", "sqm"])
    got = _read(flats, "Predict the rated column (rated value of the flat) only with bdrms and sqm.")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "rated", ["bdrms", "sqm"])


def test_a_value_fits_a_price_and_an_assessment_and_bedrooms_are_bdrms(flats):
    got = _read(flats, "Model the value of each flat (in $1000s) from its floor area and the number of bedrooms.")
    assert got["outcome"] == "ask" and {"rent", "rated"} <= set(got["candidates"])
    got = _read(flats, "Predict rent from the bedrooms and sqm only.")
    assert (got["outcome"], got["features"]) == ("ok", ["bdrms", "sqm"])


def test_the_prices_of_several_things_and_wildcards_with_a_not(baskets):
    text = canonical("using only the prices of Sunny, Tropic and Valley", ("pick", "shopper", "promo.sunny",
                     "price.sunny", "promo.tropic", "price.tropic", "promo.valley", "price.valley")).text
    assert "price.sunny, price.tropic and price.valley" in text
    # the only column of three categories answers 'which of the three brands'; the brands named among the inputs
    # make no input of it
    got = _read(baskets, "I want to predict which of the three brands the shopper took, using nothing but the prices "
                         "of Sunny, Tropic and Valley that day.")
    assert (got["outcome"], got["target"], got["features"]) == \
        ("ok", "pick", ["price.sunny", "price.tropic", "price.valley"])
    got = _read(baskets, "classify pick (inputs: the promo.* and price.* columns, not shopper) (accuracy at least 0.5) "
                         "(10 min max).")
    assert (got["outcome"], got["target"], got["constraints"]) == \
        ("ok", "pick", ["accuracy >= 0.5", "training_time_s <= 600"])
    assert got["features"] == sorted(c for c in got["features"] if c.startswith(("promo.", "price."))) and \
        len(got["features"]) == 6


def test_money_in_thousands_is_no_time():
    assert parse_constraints("predict the rent (rent, in $1000s) from everything") == []
    assert parse_constraints("the value (in 1000s)") == []
    assert [(c.name, c.target) for c in parse_constraints("train for 100s at most")] == [("training_time_s", 100.0)]


def test_only_a_table_that_moves_like_a_series_is_asked_how_far_apart_its_rows_are(casualties, tremors):
    got = _read(casualties, "forecast cyclists for the next 3 months")  # noisy, its neighbours a series
    assert got["outcome"] == "ask" and "how far apart" in got["message"]
    got = _read(tremors, "Forecast the magnitude of next week's tremors.")
    assert got["outcome"] == "refuse"
