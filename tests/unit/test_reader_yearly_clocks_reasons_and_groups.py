"""Reader classes found by the blind batch holdout37, each on sentences and tables of its own: a column called Year
holding one row per year in order is an annual series' clock; a name said right after a description is not taken into
the words that spell another name ('temperature, ausAVt' is no tasAVt); 'using the previous ten years as input' is a
lookback, not a list that takes in the names before it; 'on average we're off by no more than 150' bounds the mean
absolute error; 'accuracy is meaningless here' sets accuracy aside; a bound in a relative clause ('the F1 score for the
injury class, which should be at least 0.35'); 'it can run for an hour tops'; a parenthesis that gives a reason after a
column left out is no item; a word that begins with the first part of several names ('manufacturing' for man_proc_*)
names them as a group; an item that counts as many columns as the list after it is its heading."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import mentioned_metric, parse_constraints
from automl_agent.agents.contracts import TaskType
from automl_agent.agents.understanding.language import canonical
from automl_agent.trainkit.times import decimal_year_frequency
from tests.unit.reader_cases import read as _read, saved as _saved

YEARS = np.arange(1931, 2021)


@pytest.fixture(scope="module")
def climate(tmp_path_factory):
    """Yearly mean temperature and rainfall of three regions, one row per year with a Year column."""
    rng = np.random.default_rng(71)
    n = len(YEARS)
    trend = np.linspace(0, 1.2, n)
    frame = pd.DataFrame({"Year": YEARS})
    for region, level in (("aus", 21.8), ("tas", 10.4), ("nt", 26.1)):
        frame[f"{region}AVt"] = (level + trend + rng.normal(0, 0.25, n)).round(2)
        frame[f"{region}Rain"] = (450 + 80 * np.sin(np.arange(n) / 3) + rng.normal(0, 60, n)).round(1)
    return _saved(tmp_path_factory, "climate", frame)


@pytest.fixture(scope="module")
def batches(tmp_path_factory):
    """Batches of a process: the yield, four raw-material readings and five process readings."""
    rng = np.random.default_rng(72)
    n = 150
    frame = pd.DataFrame({f"raw_mat_{i:02d}": rng.normal(10, 2, n).round(3) for i in range(1, 5)})
    for i in range(1, 6):
        frame[f"proc_step_{i:02d}"] = rng.normal(50, 5, n).round(3)
    frame["yield"] = (40 + frame.sum(axis=1) / 40 + rng.normal(0, 1, n)).round(2)
    return _saved(tmp_path_factory, "batches", frame)


@pytest.fixture(scope="module")
def injuries(tmp_path_factory):
    """Head-injury patients, everything 0/1: the injury (8 %), a risk judgement and four findings."""
    rng = np.random.default_rng(73)
    n = 600
    return _saved(tmp_path_factory, "injuries", pd.DataFrame({
        "age.65": rng.integers(0, 2, n), "high.risk": rng.integers(0, 2, n), "vomiting": rng.integers(0, 2, n),
        "GCS.13": rng.integers(0, 2, n), "loss.of.consciousness": rng.integers(0, 2, n),
        "brain.injury": (rng.random(n) < 0.08).astype(int)}))


def test_a_year_column_with_one_row_per_year_in_order_is_a_clock(climate):
    assert decimal_year_frequency(pd.Series(YEARS, name="Year")) == 1
    # a survey's years repeat, a short run of years may be a small table's ordinal, years out of order are no clock
    assert decimal_year_frequency(pd.Series([1990, 1990, 1991, 1992] * 8, name="year")) is None
    assert decimal_year_frequency(pd.Series(np.arange(2001, 2011), name="year")) is None
    assert decimal_year_frequency(pd.Series(np.random.default_rng(1).permutation(YEARS), name="year")) is None
    assert decimal_year_frequency(pd.Series(YEARS, name="built")) is None
    got = _read(climate, "Forecast tasRain for the next 3 years. MAE under 80.")
    assert got["outcome"] == "ok" and got["task"] == "time_series_forecasting" and got["horizon"] == 3


def test_a_name_after_its_description_and_a_lookback_said_as_input(climate):
    got = _read(climate, "I need a forecast of the all-Australia mean annual temperature (degrees C), ausAVt, five "
                         "years ahead, using the previous ten years as input.")
    assert got["outcome"] == "ok" and got["target"] == "ausAVt", got
    assert got["horizon"] == 5 and got["lookback"] == 10 and got["features"] == []


def test_off_by_on_average_is_a_mean_absolute_error():
    def bounds(text: str) -> dict:
        return {c.name: (c.op, c.target) for c in parse_constraints(canonical(text, ()).text)}

    assert bounds("good enough if on average we're off by no more than 150 mm a year") == {"mae": ("<=", 150.0)}
    assert bounds("it should be off by less than 3 degrees on average") == {"mae": ("<", 3.0)}
    assert bounds("off by less than 7 on average (rmse)") == {"rmse": ("<", 7.0)}  # a measure named stays the one named


def test_a_measure_set_aside_and_a_bound_in_a_relative_clause(injuries):
    text = ("Accuracy is meaningless here, so please judge it by the F1 score for the injury class, which should be at "
            "least 0.35.")
    assert mentioned_metric(text.lower(), TaskType.tabular_classification) == "f1"
    assert [(c.name, c.op, c.target) for c in parse_constraints(text)] == [("f1", ">=", 0.35)]
    got = _read(injuries, f"Predict brain.injury from the other columns. {text}")
    assert got["metric"] == "f1" and got["constraints"] == ["f1 >= 0.35"], got


@pytest.mark.parametrize("said, seconds", [("It can run for an hour tops.", 3600.0),
                                           ("The job may take 20 minutes at most.", 1200.0),
                                           ("training can go for 2 hours", 7200.0)])
def test_what_the_job_may_run_for_is_its_time_limit(said, seconds):
    assert [(c.name, c.target) for c in parse_constraints(said)] == [("training_time_s", seconds)]


def test_the_time_limit_needs_a_job_that_runs():
    assert parse_constraints("serve 100 requests a minute") == []
    assert parse_constraints("a model that can take an hour to answer is useless") == []


def test_a_reason_in_parentheses_after_a_column_left_out_is_no_item(injuries):
    got = _read(injuries, "Predict brain.injury from everything except high.risk (that's the doctor's own judgement "
                          "and we want the model to stand on its own).")
    assert got["outcome"] == "ok" and got["excluded"] == ["high.risk"], got


def test_a_word_that_begins_with_the_first_part_of_several_names_is_their_group(batches):
    got = _read(batches, "Model yield from the process measurements only.")
    assert got["outcome"] == "ok" and got["features"] == [f"proc_step_{i:02d}" for i in range(1, 6)], got
    got = _read(batches, "Model yield from everything but the raw material readings.")
    assert got["outcome"] == "ok", got


def test_a_counted_heading_before_the_names_it_counts(batches):
    names = [f"raw_mat_{i:02d}" for i in range(1, 5)]
    got = _read(batches, f"Predict yield using only the 4 measurements of the starting batch, {', '.join(names)}.")
    assert got["outcome"] == "ok" and got["features"] == names, got
    got = _read(batches, f"Predict yield using only the 3 measurements of the starting batch, {', '.join(names)}.")
    assert got["outcome"] == "ask"  # a count that disagrees with the names is asked about
