"""A measured profile of a table: what the data agent's analysis is grounded on."""

from __future__ import annotations

import pandas as pd

from ..agents.contracts import ColumnProfile, DataProfile
from ..trainkit.columns import named_as_id
from ..trainkit.times import as_times, coded_dates, counts_rows, step_counter

_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")


def row_numbers(series: pd.Series) -> bool:
    """Whole numbers counting the rows in their order from 0 or 1 (R's exported row names, a respondent number): they
    identify a row whatever the column is called (a time-named one is a series' steps, read before this)."""
    return pd.api.types.is_integer_dtype(series) and len(series) >= 20 and not series.isna().any() \
        and counts_rows(series)


def _kind(series: pd.Series, n_rows: int) -> str:
    n_unique = series.nunique(dropna=True)
    if n_unique <= 1:
        return "constant"
    if pd.api.types.is_bool_dtype(series):
        return "boolean"
    if pd.api.types.is_datetime64_any_dtype(series):
        return "datetime"
    if pd.api.types.is_numeric_dtype(series):
        if step_counter(series) or coded_dates(series) is not None:
            # 1, 2, 3, ...: a series' steps; 1903.0833 or 1903.02: February 1903; 800102: 1980-01-02
            return "datetime"
        if (named_as_id(str(series.name)) and pd.api.types.is_integer_dtype(series) and n_unique >= 0.95 * n_rows) \
                or row_numbers(series):
            return "identifier"
        return "numeric"
    text = series.dropna().astype(str)
    if len(text) and text.head(50).str.lower().str.endswith(_IMAGE_SUFFIXES).all():
        return "image"
    if looks_like_dates(text):
        return "datetime"
    if n_unique >= 0.95 * n_rows:  # a value per row: free text has words, an id (a UUID, a hash, a code) has none
        prose = text.str.len().mean() > 30 and text.head(200).str.split().str.len().mean() >= 3
        return "text" if prose and not named_as_id(str(series.name)) else "identifier"
    if n_unique > max(50, 0.5 * n_rows) and text.str.len().mean() > 30:
        return "text"
    return "categorical"


def looks_like_dates(values: pd.Series) -> bool:
    """Dates or times in every one of the first 50 values and of up to 200 distinct ones; two small numbers with a
    dash or slash and no year ('2-10', '11-100', '3/4') are ranges, scores or fractions, not dates."""
    dated = r"\d{1,4}[-/.:]\d{1,2}"
    if values.empty or not values.head(50).str.contains(dated, regex=True).all():
        return False
    sample = pd.concat([values.head(50), pd.Series(values.unique()[:200], dtype=str)])
    if not sample.str.contains(dated, regex=True).all():
        return False
    if sample.str.fullmatch(r"\s*\d{1,3}\s*[-/.]\s*\d{1,3}\s*").all():
        return False
    parsed = pd.to_datetime(sample, errors="coerce", format="mixed")
    return bool(parsed.notna().all())


def _minority_share(series: pd.Series) -> float | None:
    counts = series.value_counts(normalize=True, dropna=True)
    return round(float(counts.min()), 4) if len(counts) == 2 else None


def profile_table(frame: pd.DataFrame, path: str = "") -> DataProfile:
    n_rows = len(frame)
    columns = []
    for name in frame.columns:
        series = frame[name]
        columns.append(ColumnProfile(
            name=str(name),
            dtype=str(series.dtype),
            kind=_kind(series, n_rows),
            missing=int(series.isna().sum()),
            n_unique=int(series.nunique(dropna=True)),
            examples=[str(v) for v in series.dropna().unique()[:5]],
            minority_share=_minority_share(series),
        ))
    counters = {c.name for c in columns if c.kind == "datetime" and step_counter(frame[c.name])}
    if any(c.kind == "datetime" and c.name not in counters for c in columns):
        # step numbers beside real dates ('t' beside 'date') count the rows; the dates are the clock
        columns = [c.model_copy(update={"kind": "numeric"}) if c.name in counters else c for c in columns]
    columns = _with_collapsed_versions(frame, columns)
    return DataProfile(
        path=path, n_rows=n_rows, n_columns=frame.shape[1], columns=columns,
        target_candidates=target_candidates(columns, n_rows), time_step_s=time_step(frame, columns),
    )


_FEW_LEVELS = 6


def _with_collapsed_versions(frame: pd.DataFrame, columns: list[ColumnProfile]) -> list[ColumnProfile]:
    """A survey's answer beside its recoding ('resp' no/perhaps/yes and 'r2' N/Y): a column of a few values that
    another of fewer values follows value for value (measured on up to 50,000 rows)."""
    few = [c for c in columns if c.kind in {"categorical", "boolean"} and 2 <= c.n_unique <= _FEW_LEVELS]
    if len(few) < 2:
        return columns
    sample = frame[[c.name for c in few]].head(50_000).astype("string")
    collapsed: dict[str, list[str]] = {}
    for fine in few:
        for coarse in few:
            if coarse.n_unique >= fine.n_unique:
                continue
            pairs = sample[[fine.name, coarse.name]]
            # (a recoding has a value wherever the answer has one: 'type' of cigarette, empty for non-smokers, is no
            # recoding of 'smoke')
            if not pairs[fine.name].isna().equals(pairs[coarse.name].isna()):
                continue
            pairs = pairs.dropna()
            if len(pairs) and int(pairs.groupby(fine.name)[coarse.name].nunique().max()) == 1:
                collapsed.setdefault(fine.name, []).append(coarse.name)
    return [c.model_copy(update={"collapsed_in": collapsed[c.name]}) if c.name in collapsed else c for c in columns]


def time_step(frame: pd.DataFrame, columns: list[ColumnProfile]) -> float | None:
    """The median gap between the distinct times of the first time column, in seconds; None without one."""
    column = next((c.name for c in columns if c.kind == "datetime"), None)
    if column is None:
        return _step_of_a_year_column(frame, columns)
    values = frame[column]
    if not pd.api.types.is_numeric_dtype(values):  # a written time means the same in every row that holds it
        values = values.drop_duplicates()
    times = as_times(values).dropna().drop_duplicates().sort_values()
    if not pd.api.types.is_datetime64_any_dtype(times):  # step numbers ('t'): how long a step lasts is not known,
        return _step_of_a_year_column(frame, columns)  # unless a year column says it
    gaps = times.diff().dropna()
    gaps = gaps[gaps > pd.Timedelta(0)]
    return float(gaps.median().total_seconds()) if len(gaps) else None


_STEPS_PER_YEAR = {12: 2629746.0, 4: 7889238.0, 52: 604800.0}


def _step_of_a_year_column(frame: pd.DataFrame, columns: list[ColumnProfile]) -> float | None:
    """A series kept without dates, with a year column (traffic2: year, month dummies, a trend): rows in year order,
    every whole year 12 rows long, are months (4 quarters, 52 weeks); anything else says no step."""
    for c in columns:
        if c.kind != "numeric" or c.name.lower() not in {"year", "yr", "years"}:
            continue
        years = pd.to_numeric(frame[c.name], errors="coerce")
        if years.isna().any() or not years.is_monotonic_increasing or not years.between(1000, 3000).all():
            continue
        runs = years.groupby(years).size().tolist()
        whole = runs[1:-1] or runs
        if len(runs) >= 2 and len(set(whole)) == 1 and whole[0] in _STEPS_PER_YEAR \
                and all(r <= whole[0] for r in (runs[0], runs[-1])):
            return _STEPS_PER_YEAR[whole[0]]
    return None


def target_candidates(columns: list[ColumnProfile], n_rows: int) -> list[str]:
    """Columns that could be a target, most plausible first (low-cardinality labels, then numeric outcomes)."""
    scored = []
    for i, c in enumerate(columns):
        if c.kind in {"identifier", "constant", "text", "datetime", "image"}:
            continue
        score = 0.0
        if c.kind in {"categorical", "boolean"} and c.n_unique <= 20:
            score += 2
        if c.kind == "numeric":
            score += 1
        score += i / max(len(columns), 1) * 0.5  # targets often sit last
        scored.append((score, c.name))
    return [name for _, name in sorted(scored, reverse=True)]


def class_balance(frame: pd.DataFrame, target: str) -> dict[str, float]:
    shares = frame[target].dropna().astype(str).value_counts(normalize=True)
    return {str(k): round(float(v), 4) for k, v in shares.items()}
