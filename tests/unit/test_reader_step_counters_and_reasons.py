"""Reader classes found by the blind corpus holdout25, each on sentences and tables of its own: a series timed by step
numbers (1, 2, 3, ...) is a series; a count in parentheses says what a window in words means ('one year of weekly lags
(52)'); 'it's no use to me' and 'two yes/no columns' leave nothing out; 'all remaining columns' sets no limit; a reason
after an exclusion ('since pay and union coverage are decided together', 'compliance asked us to') names nothing to
leave out; 'how much the district spends per pupil'; 'the reading pass rate' for read4; 'as inputs please only:';
German yes/no items with the verb last; 'a classifier for it' after two columns asks which."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.understanding.windows import requested_windows
from tests.unit.reader_cases import read as _read, saved as _saved
from automl_agent.data.profile import profile_table
from automl_agent.trainkit.times import as_times, step_counter




N = 300


@pytest.fixture(scope="module")
def counted_series(tmp_path_factory):
    """A weekly price index exported with step numbers for its time, as R writes a ts of frequency 1."""
    rng = np.random.default_rng(11)
    return _saved(tmp_path_factory, "index", pd.DataFrame({"period": np.arange(1, N + 1),
                                                           "level": np.cumsum(rng.normal(0, 0.01, N)).round(4)}))


@pytest.fixture(scope="module")
def districts(tmp_path_factory):
    """School districts: pass rates in two subjects, spending, staff, lunch program, and their logged copies."""
    rng = np.random.default_rng(12)
    frame = pd.DataFrame({"lunch": rng.uniform(0, 80, N).round(1), "pupils": rng.integers(300, 9000, N),
                          "staff": rng.uniform(80, 140, N).round(1), "expend": rng.integers(3500, 7500, N),
                          "read4": rng.uniform(20, 90, N).round(1), "math4": rng.uniform(10, 70, N).round(1)})
    frame["lpupils"] = np.log(frame.pupils).round(4)
    frame["lexpend"] = np.log(frame.expend).round(4)
    return _saved(tmp_path_factory, "districts", frame)


@pytest.fixture(scope="module")
def employees(tmp_path_factory):
    """Employees of 1990: where they live (two yes/no columns), their job and pay, union coverage."""
    rng = np.random.default_rng(13)
    yes_no = ["yes", "no"]
    frame = pd.DataFrame({"tenure": rng.integers(0, 30, N), "schooling": rng.integers(8, 18, N),
                          "collar": rng.choice(["blue", "white"], N), "factory": rng.choice(yes_no, N),
                          "coastal": rng.choice(yes_no, N), "msa": rng.choice(yes_no, N),
                          "sex": rng.choice(["male", "female"], N), "union": rng.choice(yes_no, N, p=[0.35, 0.65]),
                          "pay": rng.integers(300, 2500, N)})
    return _saved(tmp_path_factory, "employees", frame)


def test_a_column_of_step_numbers_is_a_clock_of_steps():
    assert step_counter(pd.Series(np.arange(1, 40), name="time"))
    assert step_counter(pd.Series(np.arange(0, 40), name="Week"))
    assert not step_counter(pd.Series(np.arange(1, 40), name="level"))  # not named like a time
    assert not step_counter(pd.Series(np.arange(1956, 1996), name="time"))  # years, not steps
    assert not step_counter(pd.Series([*range(1, 20), *range(21, 41)], name="time"))  # a step missing
    assert not step_counter(pd.Series(np.arange(1, 12), name="month"))  # the months of one year
    times = as_times(pd.Series(np.arange(1, 40), name="t"))
    assert times.iloc[0] == 1.0 and times.is_monotonic_increasing
    profile = profile_table(pd.DataFrame({"period": np.arange(1, 50), "level": np.linspace(0, 1, 49)}))
    assert profile.columns[0].kind == "datetime" and profile.time_step_s is None
    # beside real dates, step numbers only count the rows: the dates are the clock
    dated = pd.DataFrame({"t": np.arange(1, 50), "date": pd.date_range("2001-01-01", periods=49, freq="MS"),
                          "level": np.linspace(0, 1, 49)})
    profile = profile_table(dated)
    assert [c.kind for c in profile.columns] == ["numeric", "datetime", "numeric"] and profile.time_step_s > 86400 * 27


def test_a_series_timed_by_step_numbers_is_forecast_in_steps(counted_series):
    got = _read(counted_series, "Forecast the next four weeks of the index from the previous 26 weeks.")
    assert (got["task"], got["target"], got["horizon"], got["lookback"]) == ("time_series_forecasting", "level", 4, 26)


def test_a_count_in_parentheses_says_what_a_window_in_words_means():
    assert requested_windows("forecast 6 weeks ahead, lag window = half a year of weekly lags (26).") == (26, 6)
    assert requested_windows("forecast 6 weeks ahead (weekly), then report") == (None, 6)


def test_an_idiom_of_no_use_and_a_yes_no_type_leave_nothing_out(employees):
    got = _read(employees, "need a pay model. all other columns go in. RMSE of 300 or better or it's no use to me.")
    assert (got["target"], got["excluded"], got["constraints"]) == ("pay", [], ["rmse <= 300"])
    got = _read(employees, "There are two yes/no columns about the job; predict pay from everything.")
    assert (got["target"], got["excluded"]) == ("pay", [])


def test_all_remaining_columns_and_a_reason_that_says_who_asked(employees):
    got = _read(employees, "Predict: union\nInputs: all remaining columns (but NOT sex and NOT msa, legal asked us to "
                           "leave those two out)")
    assert (got["outcome"], got["target"], got["features"], got["excluded"]) == ("ok", "union", [], ["msa", "sex"])


def test_a_reason_after_an_exclusion_names_nothing_to_leave_out(employees):
    got = _read(employees, "I want to explain whether a worker's pay is set under a union contract. Use every other "
                           "variable except the pay itself, since pay and union coverage are decided together and I "
                           "don't want it on the right-hand side.")
    assert (got["target"], got["excluded"]) == ("union", ["pay"])


def test_how_much_a_district_spends_and_a_pass_rate_said_by_its_subject(districts):
    got = _read(districts, "Model the reading pass rate using only: the lunch share, how much the district spends per "
                           "pupil, and staff.")
    assert (got["target"], got["features"]) == ("read4", ["expend", "lunch", "staff"])
    got = _read(districts, "predict math4 from everything EXCEPT the reading pass rate and the logged copies "
                           "(lpupils, lexpend)")
    assert (got["target"], got["excluded"]) == ("math4", ["lexpend", "lpupils", "read4"])


def test_as_inputs_please_only_and_german_yes_no_items_with_the_verb_last(employees):
    got = _read(employees, "Predict the collar. As inputs please only: schooling, tenure, the sex.")
    assert (got["target"], got["features"]) == ("collar", ["schooling", "sex", "tenure"])
    got = _read(employees, "Ich möchte vorhersagen, ob jemand als Angestellter (white collar) oder als Arbeiter (blue "
                           "collar) tätig ist. Als Eingaben bitte nur: den Lohn (pay), ob die Person in der Fabrik "
                           "(factory) arbeitet und ob sie in einem Ballungsraum (msa) lebt.")
    assert (got["target"], got["features"]) == ("collar", ["factory", "msa", "pay"])


def test_a_classifier_for_it_after_two_columns_asks_which(employees):
    got = _read(employees, "Two yes/no columns say where people live: one says if they live on the coast, the other "
                           "if they live in a big metropolitan area. My manager wants a classifier for it.")
    assert got["outcome"] == "ask" and {"coastal", "msa"} <= set(got["candidates"])
