"""Reader classes found by the blind batch holdout38, each on sentences and tables of its own: dates written as whole
numbers (yymmdd, yyyymmdd) in a column named like a date order a series; 'MAE<=1e-4'; 'below half a cent (0.005)'
restated in the table's figures; a gloss that begins like the name ('Recommends (the recommended course code)');
'A, B and Rank only' where a column's name is also a verb; where one does well ('do in the math course') is no target;
a parenthesis after a column left out that glosses it ('a route code, not a real feature') or gives a reason naming
the target; '(a minute tops)', 'I can wait half an hour'."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.understanding.language import canonical
from automl_agent.trainkit.times import as_times, compact_dates
from tests.unit.reader_cases import read as _read, saved as _saved


@pytest.fixture(scope="module")
def rates(tmp_path_factory):
    """Daily exchange rates of three currencies, the date written as yymmdd across the turn of the century."""
    rng = np.random.default_rng(81)
    days = pd.bdate_range("1998-06-01", periods=400)
    frame = pd.DataFrame({"date": days.strftime("%y%m%d").astype(int), "day": days.day_name().str.lower()})
    for name, level in (("dm", 0.55), ("bp", 1.6), ("cd", 0.7)):
        frame[name] = (level + np.cumsum(rng.normal(0, 0.004, len(days)))).round(5)
    return _saved(tmp_path_factory, "rates", frame)


@pytest.fixture(scope="module")
def placement(tmp_path_factory):
    """Students: an exam score, a rank, the course recommended, the course taken, and how it went."""
    rng = np.random.default_rng(82)
    n = 300
    return _saved(tmp_path_factory, "placement", pd.DataFrame({
        "Student": np.arange(1, n + 1), "PlcmtScore": rng.integers(5, 35, n), "Rank": rng.integers(1, 100, n),
        "SATM": rng.integers(40, 80, n), "Recommends": rng.choice([f"R{i}" for i in range(5)], n),
        "Course": rng.choice([117, 120, 122, 128], n), "Grade": rng.choice(["A", "B", "C", "D"], n),
        "CourseSuccess": rng.integers(0, 2, n)}))


@pytest.fixture(scope="module")
def routes(tmp_path_factory):
    """Air routes: a route id, the fare, its log, the distance and the passengers."""
    rng = np.random.default_rng(83)
    n = 400
    fare = rng.uniform(60, 400, n).round(0)
    return _saved(tmp_path_factory, "routes", pd.DataFrame({
        "id": np.repeat(np.arange(1, n // 4 + 1), 4), "fare": fare, "lfare": np.log(fare).round(4),
        "dist": rng.integers(100, 2500, n), "passen": rng.integers(20, 8000, n)}))


def test_dates_written_as_whole_numbers_in_a_date_column():
    six = pd.Series([991230, 991231, 103, 104], name="date")  # 2000-01-03 lost its leading zeros
    assert compact_dates(six) == "%y%m%d"
    assert as_times(six).dt.strftime("%Y-%m-%d").tolist() == ["1999-12-30", "1999-12-31", "2000-01-03", "2000-01-04"]
    assert compact_dates(pd.Series([19800102, 19800103, 19800104], name="obs_date")) == "%Y%m%d"
    # digits alone make no date: another name, or numbers that are no days
    assert compact_dates(pd.Series([800102, 800103, 800104], name="amount")) is None
    assert compact_dates(pd.Series([123456, 234567, 345678], name="date")) is None


def test_a_series_dated_in_yymmdd_is_forecast(rates):
    got = _read(rates, "Forecast bp for the next five trading days from the last twenty. MAE has to come in below "
                       "half a cent (0.005).")
    assert got["outcome"] == "ok" and got["task"] == "time_series_forecasting", got
    assert got["horizon"] == 5 and got["lookback"] == 20 and got["constraints"] == ["mae < 0.005"]


@pytest.mark.parametrize("said, bound", [("MAE<=1e-4", ("mae", "<=", 0.0001)), ("rmse under 2.5e3", ("rmse", "<", 2500.0)),
                                         ("MAE below half a cent (0.005)", ("mae", "<", 0.005))])
def test_numbers_in_scientific_notation_and_restated_in_parentheses(said, bound):
    assert [(c.name, c.op, c.target) for c in parse_constraints(canonical(said, ()).text)] == [bound]


def test_a_gloss_that_begins_like_the_name_and_a_name_that_is_a_verb(placement):
    got = _read(placement, "predict Recommends (the recommended course code, R0 .. R4) from PlcmtScore, SATM and Rank "
                           "only (better than 65% accuracy) (a minute tops).")
    assert got["outcome"] == "ok" and got["target"] == "Recommends", got
    assert got["features"] == ["PlcmtScore", "Rank", "SATM"] and got["constraints"] == ["accuracy > 0.65",
                                                                                        "training_time_s <= 60"]


def test_where_one_does_well_is_no_target(placement):
    got = _read(placement, "Build something that predicts how well each student will do in the math course they take.")
    assert got["outcome"] == "ask" and "Course" not in got["candidates"][:1], got


def test_a_gloss_or_a_reason_in_parentheses_after_columns_left_out(routes):
    got = _read(routes, "Model fare on everything except lfare (that's just log(fare), it would leak) and id (a route "
                        "code, not a real feature). RMSE of no more than $50, and I can wait half an hour.")
    assert got["outcome"] == "ok" and got["target"] == "fare" and got["excluded"] == ["id", "lfare"], got
    assert got["constraints"] == ["rmse <= 50", "training_time_s <= 1800"]


@pytest.mark.parametrize("said, seconds", [("an hour max for training", 3600.0),
                                           ("20 minutes at most for the search", 1200.0),
                                           ("we need predictions for 2 hours of training data", None)])
def test_a_limit_said_before_what_it_limits(said, seconds):
    found = [c.target for c in parse_constraints(said) if c.name == "training_time_s"]
    assert found == ([seconds] if seconds else [])
