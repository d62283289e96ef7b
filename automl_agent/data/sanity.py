"""Target and leakage sanity, once the target and the task are known and before anything trains.

Stated rules, each reported, never a traceback:
- rows without a target value are not trained on (counted);
- a class with fewer than MIN_CLASS_ROWS rows cannot be both learned and tested: its rows are left out (counted);
- a column that reproduces the target (a copy, a recoding, a near one-to-one map, a unit conversion) would hand the
  model the answer: it is left out of the inputs and named, unless the instruction itself lists it as an input;
- a table with no column left to learn from is refused with what to do.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from pydantic import Field

from ..agents.contracts import Contract
from ..errors import UserFacingError
from .values import PLACEHOLDER_LABELS

MIN_CLASS_ROWS = 2
PURITY = 0.995  # a column whose values each point at one class for this share of the rows reproduces the target
NEAR_PURITY = 0.95
NEAR_ERROR_SHARE = 0.25  # a near map errs on at most a quarter of the rows the commonest class would err on
CORRELATION = 0.9995  # a number that follows a numeric target this closely is the target in other units
MIN_GROUP_ROWS = 5  # a recoding has few values, each on several rows; a column of many unique values is no recoding


class SanityReport(Contract):
    """What the checks changed: columns left out of the inputs (with why), rows left out (with why), and notes."""

    left_out: dict[str, str] = Field(default_factory=dict)
    rows_left_out: dict[str, int] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


def check(frame: pd.DataFrame, target: str | None, classification: bool, allowed_inputs: list[str] | None = None,
          name: str = "the data") -> tuple[pd.DataFrame, SanityReport]:
    """The rows to train on and what was left out. `allowed_inputs`: the instruction's own limit on the inputs (a
    column the user named as an input is kept even when it looks like a leak, and the run says so)."""
    report = SanityReport()
    if not target or target not in frame.columns:
        return frame, report
    if classification:
        frame = _placeholders_as_missing(frame, target, report)
    labelled = frame[target].notna()
    if not labelled.all():
        report.rows_left_out["no target value"] = int((~labelled).sum())
        report.notes.append(f"{int((~labelled).sum())} row(s) have no value in '{target}': not trained or tested on")
    if classification:
        frame = _drop_rare_classes(frame, target, report, name)
    for column, reason in leaking_columns(frame[frame[target].notna()], target, classification).items():
        if allowed_inputs and column in allowed_inputs:
            report.notes.append(f"'{column}' {reason}; kept because the instruction lists it as an input: expect "
                                "scores that will not hold on new data")
            continue
        report.left_out[column] = reason
        report.notes.append(f"'{column}' {reason}: left out of the inputs (a model given it would only copy it). "
                            f"If it is known before the target, name it as an input to keep it")
    return frame, report


def _placeholders_as_missing(frame: pd.DataFrame, target: str, report: SanityReport) -> pd.DataFrame:
    """'?', '-', 'unknown' as a label say nobody knew the answer: those rows have no target, they are no class."""
    text = frame[target].astype("string").str.strip().str.lower()
    placeholder = text.isin(PLACEHOLDER_LABELS) & frame[target].notna()
    if not placeholder.any() or placeholder.mean() >= 0.5:
        return frame
    shown = ", ".join(repr(v) for v in sorted(set(frame.loc[placeholder, target].astype(str)))[:5])
    report.notes.append(f"{int(placeholder.sum())} row(s) have a placeholder ({shown}) in '{target}' instead of a "
                        "class: read as no target value")
    frame = frame.copy()
    frame[target] = frame[target].where(~placeholder)
    return frame


def _drop_rare_classes(frame: pd.DataFrame, target: str, report: SanityReport, name: str) -> pd.DataFrame:
    counts = frame[target].value_counts(dropna=True)
    if counts.sum() < 20:
        return frame  # too few labelled rows at all: the feasibility check says so, in those words
    rare = counts[counts < MIN_CLASS_ROWS]
    if rare.empty:
        return frame
    kept = counts[counts >= MIN_CLASS_ROWS]
    if len(kept) < 2:
        raise UserFacingError(
            f"The column to predict, '{target}', has {len(counts)} classes in {name}, and only {len(kept)} of them has "
            f"at least {MIN_CLASS_ROWS} rows: a model cannot be trained and tested on that.",
            "Give more rows of each class, or name another column to predict (--target COLUMN).")
    shown = ", ".join(f"{k!r} ({v} row{'s' if v != 1 else ''})" for k, v in rare.head(5).items())
    rows = int(rare.sum())
    report.rows_left_out[f"classes with fewer than {MIN_CLASS_ROWS} rows"] = rows
    report.notes.append(f"{len(rare)} class(es) of '{target}' have fewer than {MIN_CLASS_ROWS} rows ({shown}): too "
                        f"few to learn and to test, so their {rows} row(s) are left out")
    return frame[~frame[target].isin(rare.index)]


def leaking_columns(frame: pd.DataFrame, target: str, classification: bool) -> dict[str, str]:
    """Columns that reproduce the target, with why in words."""
    y = frame[target]
    found: dict[str, str] = {}
    n = len(frame)
    if n < 10:
        return found
    y_text = y.astype(str)
    for column in frame.columns:
        if column == target:
            continue
        x = frame[column]
        if _same_text(x, y_text):
            found[column] = f"is a copy of the target '{target}'"
            continue
        if classification:
            reason = _recodes_classes(x, y, n, target)
        else:
            reason = _follows_numbers(x, y, target)
        if reason:
            found[column] = reason
    if not classification:
        found.update(_derived_with_another(frame.drop(columns=list(found)), target))
    return found


def _same_text(x: pd.Series, y_text: pd.Series) -> bool:
    """Whether a column reads as the target, value for value (its first rows decide most columns cheaply)."""
    head = min(len(x), 1000)
    return x.iloc[:head].astype(str).equals(y_text.iloc[:head]) and x.astype(str).equals(y_text)


MAX_PAIR_COLUMNS = 40  # pairs of numeric columns checked for a product or ratio that gives the target


def _derived_with_another(frame: pd.DataFrame, target: str) -> dict[str, str]:
    """A column derived from a numeric target with another column ('price_per_carat' = price / carat): together they
    give the target back exactly. The one named after the target is the leak; the other is a real input."""
    y = pd.to_numeric(frame[target], errors="coerce")
    numeric = [c for c in frame.columns if c != target and pd.api.types.is_numeric_dtype(frame[c])
               and frame[c].nunique() > 2][:MAX_PAIR_COLUMNS]
    if len(numeric) < 2 or y.nunique() < 3:
        return {}
    target_words = set(_words(target))
    values = {c: frame[c].to_numpy(dtype=float, na_value=np.nan) for c in numeric}
    y_values = y.to_numpy(dtype=float, na_value=np.nan)
    screen = _screening_rows(len(frame))
    found: dict[str, str] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for i, a in enumerate(numeric):
            for b in numeric[i + 1:]:
                va, vb = values[a], values[b]
                if screen is not None and not any(
                        _reproduces(combined, y_values[screen], SCREEN_CORRELATION)
                        for combined in (va[screen] * vb[screen], va[screen] / vb[screen], vb[screen] / va[screen])):
                    continue
                if not any(_reproduces(combined, y_values) for combined in (va * vb, va / vb, vb / va)):
                    continue
                named = [c for c in (a, b) if target_words & set(_words(c))]
                for column in named[:1]:
                    other = b if column == a else a
                    found[column] = (f"gives the target '{target}' back together with '{other}' (it is derived from "
                                     "the target)")
    return found


SCREEN_ROWS = 50_000  # past this many rows, the correlation checks screen a sample first and confirm on every row
SCREEN_CORRELATION = 0.99  # a sample's correlation of a real copy of the target is far above this


def _screening_rows(n: int) -> np.ndarray | None:
    """Row positions of the sample that screens pairs on a large table (None: the table is small, check every row)."""
    if n <= SCREEN_ROWS:
        return None
    return np.sort(np.random.default_rng(0).choice(n, SCREEN_ROWS, replace=False))


def _reproduces(combined: np.ndarray, y: np.ndarray, threshold: float = CORRELATION) -> bool:
    keep = np.isfinite(combined) & np.isfinite(y)
    if keep.sum() < 10:
        return False
    x, t = combined[keep], y[keep]
    if x.std() == 0 or t.std() == 0:
        return False
    return abs(float(np.corrcoef(x, t)[0, 1])) >= threshold


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", str(name).lower()) if len(w) > 2]


def _recodes_classes(x: pd.Series, y: pd.Series, n: int, target: str) -> str | None:
    n_values = x.nunique(dropna=False)
    if n_values < 2 or n_values > n / MIN_GROUP_ROWS:
        return None
    most = y.value_counts(normalize=True).iloc[0]
    if most >= PURITY:
        return None  # a target this lopsided is matched by almost anything
    keys = x.astype(str).where(x.notna(), "<missing>")
    majority = y.groupby(keys).agg(lambda v: v.value_counts().iloc[0]).sum()
    purity = majority / n
    # a near map: right on 97% of the rows where guessing the commonest class is right on 74% (a column such as
    # 'account_status' closed/active, written once the customer had left)
    if purity >= PURITY or (purity >= NEAR_PURITY and 1 - purity <= NEAR_ERROR_SHARE * (1 - most)):
        return (f"maps one to one onto the target '{target}' ({n_values} values, each with one class in "
                f"{purity:.1%} of the rows)")
    return None


def _follows_numbers(x: pd.Series, y: pd.Series, target: str) -> str | None:
    if not (pd.api.types.is_numeric_dtype(x) and pd.api.types.is_numeric_dtype(y)):
        return None
    both = pd.concat([x, y], axis=1).dropna()
    if len(both) < 10 or both.iloc[:, 0].nunique() < 3:
        return None
    a, b = both.iloc[:, 0].to_numpy(dtype=float), both.iloc[:, 1].to_numpy(dtype=float)
    if np.std(a) == 0 or np.std(b) == 0:
        return None
    screen = _screening_rows(len(a))
    if screen is not None and _correlation(a[screen], b[screen]) < SCREEN_CORRELATION:
        return None
    correlation = _correlation(a, b)
    if correlation >= CORRELATION:
        return f"follows the target '{target}' almost exactly (correlation {correlation:.4f})"
    return None


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    """The stronger of the linear and the rank correlation, as a magnitude."""
    if np.std(a) == 0 or np.std(b) == 0:
        return 0.0
    pearson = abs(float(np.corrcoef(a, b)[0, 1]))
    spearman = abs(float(pd.Series(a).rank().corr(pd.Series(b).rank())))
    return max(pearson, spearman)


def require_inputs(usable: list[str], target: str | None, name: str, left_out: dict[str, str]) -> None:
    """A model needs at least one column to learn from; say which were set aside and why."""
    if usable:
        return
    why = "; ".join(f"'{c}' {r}" for c, r in list(left_out.items())[:6])
    raise UserFacingError(
        f"{name} has no column a model can learn '{target}' from" + (f" ({why})" if why else "")
        + ": every other column is an identifier, constant, empty, or left out.",
        "Add the columns that describe each row, or name another column to predict (--target COLUMN).")


TOO_GOOD = 0.999  # a held-out score at or above this (accuracy, F1, AUC, R2) is more often a leak than a model


def split_notes(results: dict) -> list[str]:
    """What the training script's split did about the data, in words."""
    repeated = results.get("repeated_rows_kept_on_one_side")
    if not repeated:
        return []
    return [f"{repeated} row(s) repeat another row's inputs exactly; rows with the same inputs were kept on the same "
            f"side of the train/test split, so the {results.get('n_test')} test rows are inputs the model never saw"]


def score_warnings(results: dict, task: str) -> list[str]:
    """What the held-out results themselves say a user should check before trusting the model."""
    warnings = []
    if task not in {"tabular_classification", "tabular_regression", "text_classification"}:
        return warnings
    metrics = results.get("metrics") or {}
    perfect = {k: v for k, v in metrics.items() if k in {"accuracy", "f1", "roc_auc", "r2"} and v is not None
               and float(v) >= TOO_GOOD}
    if perfect:
        shown = ", ".join(f"{k} {float(v):.4f}" for k, v in perfect.items())
        warnings.append(f"the held-out score is too good to be true ({shown}): a column probably gives the answer "
                        "away (known only after the fact, or derived from the target). Check the inputs before using "
                        "this model")
    return warnings
