"""Classes from the blind batch holdout52, on series of their own (not the batch's blog traffic): R exports a `ts` of
frequency f as a time column stepping by 1/f (days counted in weeks: 1.4286, 1.5714, ...; hours counted in days:
1.0, 1.0417, ...), which numbers the steps and is no date; 'the four weeks after the series ends' is the horizon."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.understanding.windows import requested_windows
from automl_agent.trainkit.times import as_times, steps_per_unit
from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


def _clock(frequency: int, n: int, start: float = 1.0, name: str = "time") -> pd.Series:
    return pd.Series(np.round(start + np.arange(n) / frequency, 6), name=name)


def test_a_clock_stepping_by_a_fraction_numbers_the_steps():
    assert steps_per_unit(_clock(7, 200, start=1 + 3 / 7)) == 7
    assert steps_per_unit(_clock(24, 500)) == 24
    assert steps_per_unit(_clock(365, 800)) == 365  # days counted in years, kept to six decimals
    assert steps_per_unit(pd.Series(np.arange(1, 100), name="t")) == 1
    steps = as_times(_clock(7, 200, start=1 + 3 / 7))
    assert steps.iloc[:3].tolist() == [10.0, 11.0, 12.0] and not steps.duplicated().any()


@pytest.mark.parametrize("values", [
    _clock(12, 120, start=1980.0),  # decimal years are dates, read as such elsewhere
    _clock(7, 200, name="dose"),  # not named like a time
    pd.Series(np.sort(np.random.default_rng(0).uniform(1, 30, 200)), name="time"),  # uneven
    pd.Series([*np.arange(1, 50) / 7, np.nan], name="time"),  # a value missing
])
def test_what_numbers_no_steps(values):
    assert steps_per_unit(values) is None


@pytest.fixture(scope="module")
def hourly_load(tmp_path_factory):
    n = 24 * 40
    hours = np.arange(n)
    load = 500 + 120 * np.sin(2 * np.pi * hours / 24) + np.random.default_rng(52).normal(0, 15, n)
    return saved(tmp_path_factory, "substation", pd.DataFrame({"time": _clock(24, n).to_numpy(),
                                                               "load": load.round(1)}))


def test_a_series_on_a_fractional_clock_is_forecast_not_refused(hourly_load):
    got = _read(hourly_load, "Forecast the substation's hourly load for the next 48 hours; MAE under 40.")
    assert got["outcome"] == "ok" and got["target"] == "load" and got["horizon"] == 48, got


def test_the_stretch_after_the_data_is_the_horizon(hourly_load):
    got = _read(hourly_load, "Predict the hourly load for the two days after the series ends.")
    assert got["outcome"] == "ok" and got["horizon"] == 48, got
    assert requested_windows("the daily visits for the six weeks after the data ends", 86400)[1] == 42
    assert requested_windows("sales for the 3 months beyond the end of the series", 2629746)[1] == 3
    # a stretch after something else is no horizon
    assert requested_windows("whether the loan defaults in the 12 months after it was signed", 2629746)[1] is None
