"""Refuse, before anything is trained, a request that cannot succeed, saying why and what to do: constraints no
model can meet or that contradict each other, measures that do not fit the task, a target that cannot be learned,
and data the task cannot use. What can be mended is mended and said (images that cannot be read are skipped)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from pandas.api.types import is_numeric_dtype

from ..errors import StepUnclear, UserFacingError
from ..trainkit.times import as_times, coded_dates, step_counter
from .constraints import conflicting_bounds
from .understanding.windows import requested_windows, stated_step_s
from .contracts import CLASSIFICATION_TASKS, Constraint, RequirementSpec, TaskType
from .metrics import TASK_METRICS

MIN_LABELLED_ROWS = 20
AT_MOST_ONE = {"accuracy", "f1", "precision", "recall", "roc_auc", "rand_index", "adjusted_rand_index", "nmi", "silhouette",
               "r2"}
NEVER_NEGATIVE = {"rmse", "rmsle", "mse", "mae", "mape", "latency_ms", "training_time_s", "model_size_mb",
                  "peak_memory_mb", "n_parameters", "accuracy", "f1", "precision", "recall", "roc_auc", "rand_index"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".webp", ".tif", ".tiff")
TIME_NAMES = re.compile(r"^(?:date|datetime|time|timestamp|ds|day|hour|month|period)$|(?:_date|_time|_at)$", re.I)


def _refuse(problem: str, hint: str) -> UserFacingError:
    return UserFacingError(problem, hint, status="rejected")


def _said(c: Constraint) -> str:
    return f"'{c.name} {c.op} {c.target:g}'"


def check_constraints(spec: RequirementSpec, instruction: str) -> None:
    task = spec.problem.downstream_task
    constraints = spec.problem.constraints
    for c in constraints:
        if c.name in AT_MOST_ONE and (c.target > 1 or (c.target == 1 and c.op == ">")) and c.op in (">=", ">"):
            raise _refuse(f"The constraint {_said(c)} cannot be met: {c.name} is at most 1.",
                          f"Ask for a value up to 1, e.g. '{c.name} at least 0.8' (or 80 %).")
        if c.name in NEVER_NEGATIVE and (c.target < 0 or (c.target == 0 and c.op == "<")):
            verdict = "cannot be met" if c.op in ("<=", "<") else "says nothing a model could meet"
            raise _refuse(f"The constraint {_said(c)} {verdict}: {c.name} is never below 0.",
                          f"Ask for a positive limit, e.g. '{c.name} under 10'." if c.kind == "complexity"
                          else f"Ask for a positive limit on {c.name}.")
        if c.kind == "performance" and c.name not in TASK_METRICS[task]:
            raise _refuse(f"The constraint {_said(c)} does not fit this task: {task.value.replace('_', ' ')} of "
                          f"{spec.dataset.target!r} is measured by {', '.join(sorted(TASK_METRICS[task]))}.",
                          "Ask for one of those, or name the target you meant if this was not it.")
    conflict = conflicting_bounds(instruction)
    if conflict:
        low, high = conflict
        raise _refuse(f"The constraints contradict each other: {_said(low)} and {_said(high)} cannot both hold.",
                      "Keep the one you meant and run again.")


def check_target(spec: RequirementSpec, frame: pd.DataFrame, data_name: str) -> None:
    task, target = spec.problem.downstream_task, spec.dataset.target
    if task in (TaskType.tabular_clustering, TaskType.node_classification) or not target or target not in frame:
        return
    labelled = frame[target].dropna()
    if len(labelled) < MIN_LABELLED_ROWS:
        raise _refuse(f"Only {len(labelled)} of {len(frame)} rows have a value in {target!r}: a model needs at least "
                      f"{MIN_LABELLED_ROWS} labelled rows to train and to be tested.",
                      "Fill in the target for more rows, or name another column with --target.")
    if task in CLASSIFICATION_TASKS:
        classes = labelled.astype(str).value_counts()
        if len(classes) == 1:
            raise _refuse(f"{target!r} has the same value ({classes.index[0]!r}) in every labelled row: there is "
                          "nothing to tell apart.", "Check that this is the column to predict, or add rows of the "
                                                    "other classes.")
        if len(classes) > max(100, len(labelled) // 2):
            raise _refuse(f"{target!r} has {len(classes)} different values in {len(labelled)} rows: as classes "
                          "they are nearly all unique, so no classifier can learn them.",
                          "If it is an amount, ask to predict its value (regression); if it identifies rows, "
                          "choose another target.")
    others = [c for c in frame.columns if c != target]
    if not others and task != TaskType.time_series_forecasting:  # a forecast learns from the series' own past
        raise _refuse(f"{data_name} has no column besides the target {target!r}: there is nothing to learn from.",
                      "Add the columns that describe each row (for a forecast, a time column).")


def check_series(spec: RequirementSpec, frame: pd.DataFrame, instruction: str) -> list[str]:
    if spec.problem.downstream_task != TaskType.time_series_forecasting:
        if spec.problem.downstream_task != TaskType.tabular_regression:
            return []
        horizon = requested_windows(instruction)[1]
        forecast_said = re.search(_FORECAST_WORDS, instruction, re.IGNORECASE) is not None
        if not horizon and not forecast_said:
            return []  # a regression that asks for no step ahead: the table's shape is not looked at
        column = _time_column(frame)
        a_series = column is None and all(is_numeric_dtype(frame[c]) for c in frame.columns) and _reads_as_a_series(frame)
        if not horizon and a_series:
            # 'Forecast NSWMetro.' of a series kept in row order: a regression on the other columns of the same row
            # would forecast nothing
            if stated_step_s(instruction) is not None:
                raise StepUnclear("The instruction asks for a forecast but does not say how far ahead.",
                                  "Say it in the instruction (e.g. 'the next 4 quarters', 'h=12').", status="rejected")
            raise StepUnclear(
                f"The instruction asks for a forecast, but the table has no time column and no horizon is said. If its "
                f"{len(frame)} rows are the series' steps in file order, how far apart are they, and how far ahead "
                "should it forecast?",
                "Say both in the instruction (e.g. 'one row per month, the next 12 months'), or add a time column.",
                status="rejected")
        if horizon:
            if a_series:
                # a table of numbers that moves little from row to row may be a series in the order of its
                # rows: how far apart they are is the fact the horizon ('next quarter', '3 months out') is counted
                # in, and only the user knows it (a table of earthquakes, each row unlike the one before, is refused)
                raise StepUnclear(
                    f"The instruction asks for a forecast, but the table has no time column. If its {len(frame)} rows "
                    "are the series' steps in file order, how far apart are they?",
                    "Say it in the instruction (e.g. 'one row per month', 'the rows are daily'), or add a time column "
                    "(e.g. 2024-01-31).", status="rejected")
            held = f"; {column!r} holds no dates (e.g. {str(frame[column].iloc[0])!r})" if column else ""
            raise _refuse(f"The instruction asks for the next {horizon} steps of a series, but the data has no column "
                          f"of dates or times to order it by{held}.",
                          "Add a time column (e.g. 2024-01-31 13:00), or ask to predict the value from the other "
                          "columns instead of a forecast.")
        return []
    notes: list[str] = []
    column = _time_column(frame)
    if column is None or column not in frame:
        needed = (spec.problem.pred_seq_len or 12) * 3
        if len(frame) < needed:
            raise _refuse(f"The series has {len(frame)} rows: too few to learn and test a forecast of "
                          f"{spec.problem.pred_seq_len or 12} steps (at least {needed} are needed).",
                          "Give a longer history, or ask for a shorter horizon.")
        return [f"the table has no time column: its {len(frame)} rows are taken as the series' steps, in the order "
                "of the file"]
    times = as_times(frame[column])
    if times.notna().mean() < 0.9:
        example = frame[column][times.isna()].astype(str).iloc[0]
        raise _refuse(f"The time column {column!r} does not hold dates or times (e.g. {example!r}).",
                      "Give dates or times (e.g. 2024-01-31 13:00), or drop the column to forecast in row order.")
    repeated = times[times.duplicated(keep=False)].dropna()
    if len(repeated):
        raise _refuse(f"The time column {column!r} repeats {repeated.nunique()} timestamps (e.g. {repeated.iloc[0]}): "
                      "one series needs one row per time.",
                      "Aggregate the rows per timestamp first (for example their mean), or split the series into "
                      "one file each.")
    if not times.dropna().is_monotonic_increasing:
        notes.append(f"the rows are not in time order; the series is sorted by {column!r}")
    ordered = times.dropna().sort_values()
    steps = ordered.diff().dropna()
    if len(steps):
        usual = steps.mode().iloc[0]
        gaps = int((steps > usual).sum())
        if gaps:
            # the rows are the steps (ordered_series sorts, it does not fill in the missing times): a trading-day series
            # is forecast in trading days, and a step across a missing hour spans two
            notes.append(f"{gaps} gap(s) in {column!r} (the usual step is {usual}); the rows are taken as the steps, so "
                         "a step across a gap spans more time (trading days, or readings that are missing)")
    needed = (spec.problem.pred_seq_len or 12) * 3
    if times.notna().sum() < needed:
        raise _refuse(f"The series has {int(times.notna().sum())} points: too few to learn and test a forecast of "
                      f"{spec.problem.pred_seq_len or 12} steps (at least {needed} are needed).",
                      "Give a longer history, or ask for a shorter horizon.")
    return notes


def _reads_as_a_series(frame: pd.DataFrame) -> bool:
    """The table's columns move little from row to row or from season to season (median over its columns of more than
    two values of their best autocorrelation at a neighbour's or a usual season's distance at 0.5 or more, over 24 rows
    or more), as a series kept in time order does and rows drawn one by one do not (a noisy count such as vans' drivers
    killed a month may not, its neighbours in the table do; quarterly visitor nights swing from quarter to quarter, and
    agree with the same quarter a year before)."""
    columns = [c for c in frame.columns if frame[c].nunique() > 2]
    if len(frame) < 24 or not columns:
        return False
    lags = [lag for lag in _SEASON_LAGS if lag * 3 <= len(frame)]
    best = pd.Series([max((frame[c].astype(float).autocorr(lag) for lag in lags), default=float("nan"))
                      for c in columns]).dropna()
    return len(best) > 0 and float(best.median()) >= 0.5


_FORECAST_WORDS = r"\bforecast\w*|\boutlook\b|\bprognos\w*|\bpronóstic\w*|\bprévision\w*|\bvorhersag\w*"
_SEASON_LAGS = (1, 4, 7, 12, 24, 52)  # the next row, and a year of quarters, a week of days, a year of months, a day
# of hours, a year of weeks


def _time_column(frame: pd.DataFrame) -> str | None:
    """The column that orders a series, as the data agent picks it: the first whose values are dates or times; else
    one named like a time."""
    return _dates_column(frame) or next((c for c in frame.columns if TIME_NAMES.search(str(c))), None)


def _dates_column(frame: pd.DataFrame) -> str | None:
    """The column of dates that orders the rows: of the columns whose values read as dates, the one with the most
    distinct dates ('date' beside a month-name column 'month', whose 'Jan' and 'Feb' read as dates of year 1); else a
    column of step numbers."""
    found: list[tuple[int, int, str]] = []
    for position, column in enumerate(frame.columns):
        if pd.api.types.is_datetime64_any_dtype(frame[column]) or coded_dates(frame[column]) is not None:
            found.append((frame[column].nunique(), -position, column))
        elif not pd.api.types.is_numeric_dtype(frame[column]):
            sample = frame[column].dropna().astype(str).head(200)
            parsed = pd.to_datetime(sample, errors="coerce", format="mixed") if len(sample) else sample
            if len(sample) and parsed.notna().mean() >= 0.9:
                found.append((parsed.nunique(), -position, column))
    if not found:  # step numbers (1, 2, 3, ...) order a series that has no dates
        return next((column for column in frame.columns if step_counter(frame[column])), None)
    return max(found)[2]


def check_images(spec: RequirementSpec, frame: pd.DataFrame, data_path: str) -> list[str]:
    if spec.problem.downstream_task != TaskType.image_classification:
        return []
    column = next((c for c in frame.columns if frame[c].astype(str).str.lower().str.endswith(IMAGE_SUFFIXES).mean() > 0.5),
                  None)
    if column is None:
        return []
    from ..trainkit.runtime import unreadable_images

    paths = frame[column].dropna().astype(str).tolist()
    missing, broken = unreadable_images(paths, str(Path(data_path).resolve().parent))
    readable = len(paths) - len(missing) - len(broken)
    if readable < MIN_LABELLED_ROWS:
        raise _refuse(f"Only {readable} of the {len(paths)} images listed in {Path(data_path).name} can be read "
                      f"({len(missing)} missing, {len(broken)} not images{', e.g. ' + (missing or broken)[0] if missing or broken else ''}).",
                      "Image paths are read relative to the labels file's folder; check that the files are there.")
    notes = []
    if missing:
        notes.append(f"{len(missing)} listed image(s) are missing (e.g. {missing[0]}); those rows are skipped")
    if broken:
        notes.append(f"{len(broken)} file(s) are not readable images (e.g. {broken[0]}); those rows are skipped")
    return notes


def check_feasible(spec: RequirementSpec, frame: pd.DataFrame, data_path: str, instruction: str) -> list[str]:
    """Raises when the request cannot succeed; returns what was noticed and mended, for the run's output."""
    from .understanding import read_as

    instruction = read_as(instruction, frame.columns, data_path)
    check_constraints(spec, instruction)
    check_target(spec, frame, Path(data_path).name)
    return check_series(spec, frame, instruction) + check_images(spec, frame, data_path)
