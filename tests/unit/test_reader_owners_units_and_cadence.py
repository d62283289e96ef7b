"""Reader classes found by the blind batch holdout33, each on sentences and tables of its own: 'a regression of Y on
these columns: ...'; a table's name that one of its columns also bears; a number word in parentheses ('(ten minutes
max)'); a lookback said as a history or in German; 'keep the compute under 2 hours'; a column said after its name
not to be used is no target; a bound in the clause after the one naming its measure; a forecast on a table with no
time column and no cadence asks how far apart the rows are; 'avg miss'; the candidates of a question led by the
columns the words touch; a unit after an item ('in thousands of euros'); 'years of schooling'; two owners of one
thing ('the wife's and the husband's schooling'); 'birth order' is parity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.understanding.language import canonical
from automl_agent.agents.understanding.windows import requested_windows
from automl_agent.agents.understanding.words import numbers_to_digits
from tests.unit.reader_cases import read as _read, saved as _saved

N = 300


@pytest.fixture(scope="module")
def visits(tmp_path_factory):
    """A package's table of clinic visits, named like one of its columns (survey__visits.csv holds 'visits')."""
    rng = np.random.default_rng(41)
    count = rng.integers(1, 40, N)
    return _saved(tmp_path_factory, "survey__visits", pd.DataFrame({
        "visits": count, "lvisits": np.log(count).round(4), "age": rng.integers(18, 90, N),
        "income": rng.uniform(5, 120, N).round(1), "distance": rng.uniform(0.5, 40, N).round(1)}))


@pytest.fixture(scope="module")
def commutes(tmp_path_factory):
    """Each commuter's chosen mode and the minutes each mode would take."""
    rng = np.random.default_rng(42)
    return _saved(tmp_path_factory, "commutes", pd.DataFrame({
        "mode": rng.choice(["walk", "bike", "tram"], N), "mins.walk": rng.uniform(10, 60, N).round(1),
        "mins.bike": rng.uniform(5, 30, N).round(1), "mins.tram": rng.uniform(8, 40, N).round(1)}))


@pytest.fixture(scope="module")
def series(tmp_path_factory):
    """Three counts per period, no date column."""
    rng = np.random.default_rng(43)
    walk = np.abs(np.cumsum(rng.normal(0, 1, (N, 3)), axis=0) + 50)
    return _saved(tmp_path_factory, "counts", pd.DataFrame(walk.round(2), columns=["arrivals", "stayshort",
                                                                                     "staylong"]))


@pytest.fixture(scope="module")
def couples(tmp_path_factory):
    """Households: income, each spouse's schooling, the child's birth order, hours worked."""
    rng = np.random.default_rng(44)
    return _saved(tmp_path_factory, "couples", pd.DataFrame({
        "hhinc": rng.uniform(10, 200, N).round(1), "wifeeduc": rng.integers(8, 20, N),
        "husbeduc": rng.integers(8, 20, N), "parity": rng.integers(1, 6, N), "hours": rng.integers(0, 60, N)}))


def test_a_regression_of_y_on_a_list_and_the_table_named_like_a_column(visits):
    got = _read(visits, "For a class exercise (survey, visits) I need a regression of lvisits, the log of the count, "
                        "on these columns: age, income. RMSE under 0.9 please.")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "lvisits", ["age", "income"])


def test_a_number_word_in_parentheses_and_the_compute_kept_to_a_time():
    assert numbers_to_digits("cluster them (ten minutes max)") == "cluster them (10 minutes max)"
    assert numbers_to_digits('a "five" star') == 'a "five" star'  # a quoted number word is a name, left alone
    said = {c.name: (c.op, c.target) for c in parse_constraints("Group the rows (twenty minutes max).")}
    assert said == {"training_time_s": ("<=", 1200.0)}
    said = {c.name: (c.op, c.target) for c in parse_constraints("No hurry, but keep the compute under 3 hours.")}
    assert said == {"training_time_s": ("<", 10800.0)}
    # minutes after a forecast named earlier in the sentence limit the training; a wait said of the answer is latency
    said = {c.name: (c.op, c.target) for c in parse_constraints("quick forecast of sales for next quarter, avg miss at "
                                                                "most 10, 2 mins tops")}
    assert said == {"mae": ("<=", 10.0), "training_time_s": ("<=", 120.0)}
    assert [c.name for c in parse_constraints("each forecast must come back within 2 minutes")] == ["latency_ms"]


def test_a_lookback_said_as_a_history_or_in_german():
    assert requested_windows("Forecast the next 6 months with a history of 18 months.", 30 * 86400.0) == (18, 6)
    text = canonical("Bitte die Spalte umsatz für die nächsten 3 Monate vorhersagen, mit einem Rückblick von "
                     "12 Monaten.").text
    assert requested_windows(text, 30 * 86400.0) == (12, 3)


def test_a_column_said_not_to_be_used_after_its_name_is_not_the_target(commutes):
    got = _read(commutes, "I want to predict mins.tram from the other times. The column mode must not be used, it "
                          "is decided afterwards.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "mins.tram", ["mode"])
    got = _read(commutes, "Quiero predecir mins.bike. La columna mode no se debe usar. Quiero un RMSE menor que 5, "
                          "y que el entrenamiento no pase de media hora.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "mins.bike", ["mode"])
    assert got["constraints"] == ["rmse < 5", "training_time_s <= 1800"]


def test_a_bound_in_the_clause_after_its_measure():
    said = {c.name: (c.op, c.target) for c in parse_constraints(
        "Please report balanced nothing, just accuracy; I would like at least 0.7. Training may take 20 minutes.")}
    assert said["accuracy"] == (">=", 0.7)


def test_a_forecast_without_a_time_column_or_a_cadence_asks_how_far_apart_the_rows_are(series):
    got = _read(series, "quick forecast of stayshort for next quarter pls, avg miss at most 2")
    assert got["outcome"] == "ask" and "how far apart" in got["message"]
    got = _read(series, "quick forecast of stayshort for next quarter pls, avg miss at most 2. One row per month.")
    assert (got["outcome"], got["task"], got["horizon"], got["constraints"]) == \
        ("ok", "time_series_forecasting", 3, ["mae <= 2"])


def test_two_names_begun_by_one_word_are_asked_about_and_the_candidates_are_the_columns_the_words_touch(
        series, couples):
    # 'the stays' starts stayshort and staylong alike (its s does not start 'short'); 'the short stays' is one of them
    got = _read(series, "Forecast the stays for the next 12 months. The rows are monthly.")
    assert got["outcome"] == "ask" and set(got["candidates"]) == {"stayshort", "staylong"}
    got = _read(series, "Forecast the short stays for the next 12 months. The rows are monthly.")
    assert (got["outcome"], got["target"]) == ("ok", "stayshort")
    got = _read(couples, "Can you model a spouse's years of schooling from household income and hours?")
    assert got["outcome"] == "ask" and set(got["candidates"][:2]) == {"wifeeduc", "husbeduc"}


def test_units_years_of_and_two_owners_of_one_thing(couples):
    got = _read(couples, "Predict the hours worked. Use only the household's income in thousands of euros, the "
                         "wife's and the husband's years of schooling and the child's birth order.")
    assert (got["outcome"], got["target"], got["features"]) == \
        ("ok", "hours", ["hhinc", "husbeduc", "parity", "wifeeduc"])
