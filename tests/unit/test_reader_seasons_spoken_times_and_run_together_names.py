"""Reader classes found by the blind batch holdout35, each on sentences and tables of its own: a seasonal series with
no time column swings from row to row but agrees with the row a season before; 'Forecast X.' of such a table is no
regression of X on the same row's other columns; 'h=4 qtrs', 'budget 5m', 'half an hour at the very most'; a bound in
millions on figures said to be 'in millions'; the verb after "don't" is no item ('don't use woman' beside a column
called use); 'with the columns A, B and C' lists inputs, and an item that is a column's whole name stays one though
the name is a column noun ('field'); 'the founding year' is foundingyear, 'the characters per page' charpp, 'the
subscription price' price; a name whose capitals mark its words is not spelt with a word left unsaid ('wales coast'
is no WAUCoast)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import data_unit, parse_constraints
from automl_agent.agents.understanding.words import abbreviates_with_a_word_unsaid
from tests.unit.reader_cases import read as _read, saved as _saved

N = 80


@pytest.fixture(scope="module")
def stays(tmp_path_factory):
    """Quarterly guest nights (millions) of four coastal areas, no date column: high in summer, low in winter."""
    rng = np.random.default_rng(61)
    season = np.tile([1.6, -0.4, -1.2, 0.2], N // 4)
    frame = pd.DataFrame({name: (level + season * level / 8 + rng.normal(0, 0.15, N)).round(3)
                          for name, level in (("EastMetro", 9.0), ("EHCoast", 3.0), ("EHNorth", 2.0),
                                              ("WAUCoast", 4.0))})
    return _saved(tmp_path_factory, "stays", frame)


@pytest.fixture(scope="module")
def periodicals(tmp_path_factory):
    """Magazines: subscriptions, price, pages, characters per page, founding year, citations, field."""
    rng = np.random.default_rng(62)
    n = 200
    return _saved(tmp_path_factory, "periodicals", pd.DataFrame({
        "subs": rng.integers(5, 1000, n), "price": rng.integers(20, 1500, n), "pages": rng.integers(200, 3000, n),
        "charpp": rng.integers(1500, 4000, n), "foundingyear": rng.integers(1880, 1990, n),
        "citations": rng.integers(10, 5000, n), "field": rng.choice(["finance", "labour", "theory", "trade"], n)}))


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    """A survey of women: whether they use contraception, their district, age, children and whether urban."""
    rng = np.random.default_rng(63)
    n = 300
    return _saved(tmp_path_factory, "survey", pd.DataFrame({
        "woman": np.arange(1, n + 1), "district": rng.integers(1, 60, n), "use": rng.choice(["Y", "N"], n),
        "livch": rng.choice(["0", "1", "2", "3+"], n), "age": rng.normal(0, 9, n).round(2),
        "urban": rng.choice(["Y", "N"], n, p=[0.3, 0.7])}))


def test_a_seasonal_series_without_a_clock_is_asked_about_not_refused_nor_regressed(stays):
    got = _read(stays, "forecast EastMetro for the coming year")
    assert got["outcome"] == "ask" and "how far apart" in got["message"]
    got = _read(stays, "Forecast EastMetro.")  # no horizon: a regression on the same quarter's other areas is no forecast
    assert got["outcome"] == "ask" and "how far ahead" in got["message"]
    got = _read(stays, "Forecast EastMetro. The data is quarterly.")
    assert got["outcome"] == "ask" and "how far ahead" in got["message"]
    got = _read(stays, "Predict EastMetro from the other areas.")  # no forecast asked: a regression
    assert (got["outcome"], got["task"]) == ("ok", "tabular_regression")


def test_terse_windows_and_budgets(stays):
    got = _read(stays, "Forecast EastMetro, one row per quarter, h=4 qtrs, lookback 12 qtrs. mae<=0.6. budget 5m.")
    assert (got["outcome"], got["task"], got["horizon"], got["lookback"]) == ("ok", "time_series_forecasting", 4, 12)
    assert got["constraints"] == ["mae <= 0.6", "training_time_s <= 300"]


@pytest.mark.parametrize("said, seconds", [("give it half an hour at the very most", 1800),
                                           ("keep it to a quarter of an hour", 900),
                                           ("training may take an hour and a half at most", 5400),
                                           ("time limit: 90s", 90)])
def test_times_said_in_words(said, seconds):
    assert [(c.name, c.target) for c in parse_constraints(said)] == [("training_time_s", seconds)]


def test_a_bound_in_the_magnitude_the_figures_are_written_in(stays):
    assert data_unit("(quarterly guest nights in millions for four areas)") == 1e6
    assert data_unit("the revenue, in thousands, of each shop") == 1e3
    assert data_unit("a table in millions of rows") == 1.0
    got = _read(stays, "Guest nights in millions, one row per quarter. Forecast EastMetro four quarters ahead with an "
                       "MAE below 1.1 million nights.")
    assert (got["outcome"], got["constraints"]) == ("ok", ["mae < 1.1"])


def test_the_verb_after_a_negation_is_no_column(survey):
    got = _read(survey, "Predict urban. Don't use woman, that's just the respondent ID.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "urban", ["woman"])
    got = _read(survey, "Predict urban; don't use the use column.")
    assert (got["outcome"], got["excluded"]) == ("ok", ["use"])


def test_inputs_listed_after_with_and_names_that_are_column_nouns(periodicals):
    got = _read(periodicals, "I want to predict the price of a journal with the columns pages, charpp, citations, subs "
                             "and field.")
    assert (got["outcome"], got["target"], got["features"]) == \
        ("ok", "price", ["charpp", "citations", "field", "pages", "subs"])
    got = _read(periodicals, "Predict price using pages, subs and field.")
    assert (got["outcome"], got["features"]) == ("ok", ["field", "pages", "subs"])


def test_names_said_as_words(periodicals):
    got = _read(periodicals, "Model the number of citations. Use only the subscription price, the number of pages, "
                             "the characters per page and the founding year.")
    assert (got["outcome"], got["target"], got["features"]) == \
        ("ok", "citations", ["charpp", "foundingyear", "pages", "price"])


def test_a_name_whose_capitals_mark_its_words_has_no_word_left_unsaid():
    assert not abbreviates_with_a_word_unsaid("WAUCoast", "wales", "coast")
    assert abbreviates_with_a_word_unsaid("atotinc", "applicant", "income")


# the blind batch holdout36, written after holdout35's fixes: a bound in billions written out in full, an error in
# percent of a target that is a percentage, a parenthesis of bounds after an excluded column


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    """Meat samples: water, fat and protein in percent, a share of lean and two spectrum channels; a batch code."""
    rng = np.random.default_rng(64)
    n = 200
    fat = rng.uniform(2, 45, n).round(1)
    return _saved(tmp_path_factory, "samples", pd.DataFrame({
        "x_001": rng.normal(2.6, 0.3, n).round(4), "x_002": rng.normal(2.7, 0.3, n).round(4),
        "water": (75 - 0.7 * fat + rng.normal(0, 1, n)).round(1), "fat": fat,
        "protein": rng.uniform(11, 22, n).round(1), "lean": rng.uniform(0.5, 0.95, n).round(3),
        "batch": rng.choice(["Train", "Test"], n), "grade": rng.choice(["A", "B"], n, p=[0.35, 0.65])}))


def test_a_bound_in_billions_is_written_out_in_full():
    said = "The gdp column (billions of dollars). The average miss should be no more than 150 billion dollars."
    assert [(c.name, c.target) for c in parse_constraints(said)] == [("mae", 150.0)]
    assert [(c.name, c.target) for c in parse_constraints("an MAE of at most 150 billion")] == [("mae", 1.5e11)]


def test_an_error_in_percent_of_a_percentage_is_in_its_points(samples):
    got = _read(samples, "Build a model for the water percentage from everything but fat; a root mean square error "
                         "below three percent would be fine.")
    assert (got["outcome"], got["target"], got["constraints"]) == ("ok", "water", ["rmse < 3"])
    got = _read(samples, "Predict lean from the other columns with an RMSE under 5%.")
    assert (got["outcome"], got["target"], got["constraints"]) == ("ok", "lean", ["rmse < 0.05"])


def test_a_parenthesis_of_bounds_after_an_excluded_column_is_no_item(samples):
    got = _read(samples, "classify A vs B (grade), drop batch (f1 >= .74, A = positive) (train < 2 min).")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "grade", ["batch"])
    assert got["constraints"] == ["f1 >= 0.74", "training_time_s < 120"]
