"""The times that order a series, however the table writes them: dates and times as text or as datetimes, or the
decimal years of a regular series (R's `ts` objects export their time that way: 1903.0, 1903.0833, ... for monthly
readings), years with the month or quarter after the point (1947.01 for January 1947, 1959.3 for its third quarter),
whole numbers written yymmdd or yyyymmdd, or the step numbers of a series with no calendar (R exports a `ts` of frequency 1 as 1, 2, 3, ...,
and one of frequency 7 as 1.4286, 1.5714, ...; those stay numbers: the steps are known, their length in days is not). The profile, the feasibility checks and the training scripts all read a time column through here, so a
series is ordered the same way at every stage."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

# periods a year a decimal-year index may step by: yearly, half-yearly, quarterly, monthly, weekly, daily (R's daily
# `ts` of frequency 365, leap days left out: 1981.0, 1981.00274, ...)
_PERIODS_A_YEAR = (1, 2, 4, 12, 52, 365)


def decimal_year_frequency(values: pd.Series) -> int | None:
    """How many periods a year a column of decimal years steps by, when it is one: numbers between the years 1000 and
    3000, distinct, in sorted order a constant step of 1/f of a year apart with f in 1, 2, 4, 12, 52 or 365 (a step of a
    whole year only in a column named like time, since a column of survey years is a feature, not a clock)."""
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return None
    years = pd.to_numeric(values, errors="coerce").dropna().to_numpy(dtype=float)
    if len(years) < 3 or years.min() < 1000 or years.max() > 3000:
        return None
    steps = np.diff(np.sort(years))
    if (steps <= 0).any():
        return None
    for frequency in _PERIODS_A_YEAR:
        if np.allclose(steps, 1 / frequency, rtol=0, atol=0.01 / frequency):
            if frequency == 1 and not _a_yearly_clock(values):
                return None
            return frequency
    return None


def _a_yearly_clock(values: pd.Series) -> bool:
    """Whole years one apart order a series when the column is named like a time, or named a year and holding one row
    per year in the rows' own order over at least _MIN_STEPS years (annual regional averages 1900..2021); a survey's
    years repeat, and a few rows of years are as likely a small table's ordinal as a clock."""
    name = str(values.name).strip().lower()
    if name in {"time", "date", "period", "t"}:
        return True
    in_row_order = bool(np.all(np.diff(values.to_numpy(dtype=float)) > 0))
    return name in {"year", "yr", "years"} and len(values) >= _MIN_STEPS and in_row_order and not values.isna().any()


# names a column numbering a series' steps goes by
_STEP_NAMES = {"time", "t", "period", "step", "tick", "week", "day", "month", "quarter", "hour"}
_MIN_STEPS = 24  # fewer whole numbers one apart are more likely a small table's own ordinal column than a clock


def counts_rows(values: pd.Series) -> bool:
    """Numbers going up by one from 0 or 1 in the order of the rows."""
    numbers = values.to_numpy(dtype=float)
    return len(numbers) > 0 and numbers[0] in (0.0, 1.0) and bool(np.all(np.diff(numbers) == 1))


def steps_per_unit(values: pd.Series) -> int | None:
    """How many steps of a series one unit of a column that numbers them holds; None when it numbers none. The column
    is named like a time, has no value missing, and goes up in the order of the rows either by one from 0 or 1 (R's
    `ts` of frequency 1: 1, 2, 3, ...; 1) or by a constant 1/f below the calendar years (a `ts` of frequency f:
    1.4286, 1.5714, ... are days counted in weeks; 7)."""
    if str(values.name).strip().lower() not in _STEP_NAMES or not pd.api.types.is_numeric_dtype(values) \
            or pd.api.types.is_bool_dtype(values) or len(values) < _MIN_STEPS or values.isna().any():
        return None
    if counts_rows(values):
        return 1
    numbers = values.to_numpy(dtype=float)
    steps = np.diff(numbers)
    if numbers.max() >= 1000 or not 0 < np.median(steps) < 1:
        return None  # decimal years are dates (coded_dates)
    frequency = int(round(1 / np.median(steps)))
    # (within a hundredth of a step: a CSV keeps 1/365 to six decimals)
    return frequency if frequency >= 2 and np.allclose(steps, 1 / frequency, rtol=0, atol=0.01 / frequency) else None


def step_counter(values: pd.Series) -> bool:
    """A column that numbers the steps of a series (steps_per_unit)."""
    return steps_per_unit(values) is not None


def decimal_years_as_dates(values: pd.Series, frequency: int) -> pd.Series:
    """The start of each period a decimal year names: 1903.0833 in a monthly series is 1903-02-01."""
    years = pd.to_numeric(values, errors="coerce")
    whole = np.floor(years + 1e-6)
    period = np.round((years - whole) * frequency)
    if frequency in (52, 365):
        offsets = pd.to_timedelta(period.fillna(0) * (7 if frequency == 52 else 1), unit="D")
        dates = pd.to_datetime(whole.fillna(1970).astype(int).astype(str) + "-01-01") + offsets
    else:
        month = (period.fillna(0) * (12 // frequency) + 1).astype(int)
        dates = pd.to_datetime(pd.DataFrame({"year": whole.fillna(1970).astype(int), "month": month, "day": 1}))
    return dates.where(years.notna())


def compact_dates(values: pd.Series) -> str | None:
    """The format of a column of dates written as whole numbers, yymmdd or yyyymmdd (800102, 19800102), when the
    column is named like a date and every value reads as one; else None (a number column is no date by its digits
    alone)."""
    if not re.search(r"date|^dt$|^ymd$|^yyyymmdd$|^yymmdd$", str(values.name).strip().lower()) \
            or pd.api.types.is_bool_dtype(values):
        return None
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.isna().mean() > 0.01 or len(numbers.dropna()) < 3 or (numbers.dropna() % 1 != 0).any():
        return None
    written = numbers.dropna().astype("int64").astype(str)
    for width, format in ((8, "%Y%m%d"), (6, "%y%m%d")):
        if written.str.len().max() == width and (width == 6 or (written.str.len() == 8).all()):
            parsed = pd.to_datetime(written.str.zfill(width), format=format, errors="coerce")
            if parsed.notna().all():
                return format
    return None


def year_period_dates(values: pd.Series) -> pd.Series | None:
    """The start of each period when a column writes years with the month (1947.01 .. 1947.12) or the quarter
    (1959.1 .. 1959.4) after the point, as some econometrics tables do, and the periods follow one another (sorted and
    distinct, one period apart but for a few gaps); else None. Read as decimal years, 1947.01 would be January 4th."""
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return None
    numbers = pd.to_numeric(values, errors="coerce")
    known = numbers.dropna().to_numpy(dtype=float)
    if len(known) < _MIN_STEPS or known.min() < 1000 or known.max() > 3000:
        return None
    whole = np.floor(known + 1e-6)
    for digits, periods in ((100, 12), (10, 4)):
        period = (known - whole) * digits
        if not np.allclose(period, np.round(period), rtol=0, atol=0.02):
            continue
        period = np.round(period)
        if period.min() < 1 or period.max() > periods or len(np.unique(period)) < periods:
            continue
        steps = np.diff(np.sort(whole * periods + period))
        if (steps <= 0).any() or np.median(steps) != 1 or (steps > 1).mean() > 0.05:
            continue
        month = ((numbers - np.floor(numbers + 1e-6)) * digits).round()
        month = month if periods == 12 else (month - 1) * 3 + 1
        year = np.floor(numbers + 1e-6)
        dates = pd.to_datetime(pd.DataFrame({"year": year.fillna(1970).astype(int),
                                             "month": month.fillna(1).astype(int), "day": 1}))
        return dates.where(numbers.notna())
    return None


def coded_dates(values: pd.Series) -> pd.Series | None:
    """The dates a column of numbers stands for, when it is one of the codes above (yymmdd, decimal years, year and
    month or quarter); None when its numbers are no dates. The profile, the feasibility checks and the training
    scripts all ask here, so a column is read as the same dates at every stage."""
    compact = compact_dates(values)
    if compact is not None:
        numbers = pd.to_numeric(values, errors="coerce")
        written = numbers.astype("Int64").astype("string").str.zfill(8 if compact == "%Y%m%d" else 6)
        return pd.to_datetime(written, format=compact, errors="coerce")
    periods = year_period_dates(values)
    if periods is not None:
        return periods
    frequency = decimal_year_frequency(values)
    if frequency is not None:
        return decimal_years_as_dates(values, frequency)
    return None


def as_times(values: pd.Series) -> pd.Series:
    """A time column as datetimes (NaT where a value is no time); a step counter as its step numbers."""
    frequency = steps_per_unit(values)
    if frequency is not None:  # the step numbers, whole (1.4286 in a series of frequency 7 is step 10)
        return pd.Series(np.round(pd.to_numeric(values).to_numpy(dtype=float) * frequency), index=values.index,
                         name=values.name)
    coded = coded_dates(values)
    if coded is not None:
        return coded
    return pd.to_datetime(values, errors="coerce", format="mixed")
