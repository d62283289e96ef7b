"""The served model's request payload: records checked against the training columns' schema (plain Python, cheap
enough to run per request), then many requests' records turned into one frame (once per batch)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..data.values import clean_label

MAX_RECORDS = 10_000


class PayloadError(ValueError):
    """A request the model cannot answer; the message says what is wrong and what is expected."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isinf(value)


def check_records(records: Any, schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The records, unchanged, when they fit the schema; otherwise a PayloadError naming the first problem."""
    columns = {c["name"]: c for c in schema["columns"]}
    if not isinstance(records, list) or not records:
        raise PayloadError("'records' must be a non-empty list of objects, one per row")
    if len(records) > MAX_RECORDS:
        raise PayloadError(f"at most {MAX_RECORDS} records per request; got {len(records)}")
    target = schema.get("target")
    for i, record in enumerate(records):
        if not isinstance(record, dict):
            raise PayloadError(f"record {i} is not an object with column names as keys")
        missing = [name for name, column in columns.items() if name not in record and not column.get("optional")]
        unknown = [name for name in record if name not in columns and name != target]
        if missing:
            optional = [name for name, column in columns.items() if column.get("optional")]
            raise PayloadError(f"record {i} lacks columns {missing[:20]}; expected columns: {list(columns)[:50]}"
                               + (f" (these may be left out: {optional[:20]})" if optional else ""))
        if unknown:
            raise PayloadError(f"record {i} has unknown columns {unknown[:20]}; expected columns: {list(columns)[:50]}")
        for name, column in columns.items():
            _check_value(i, name, column, record.get(name))
    return records


def _check_value(i: int, name: str, column: dict[str, Any], value: Any) -> None:
    kind = column["type"]
    if kind == "number" and value is not None and not _is_number(value):
        raise PayloadError(f"record {i}: column {name!r} must be a finite number (or null), got {str(value)[:80]!r}")
    if kind in ("category", "text") and isinstance(value, (dict, list)):
        raise PayloadError(f"record {i}: column {name!r} must be {'a category' if kind == 'category' else 'text'} "
                           f"(a string), got {str(value)[:80]!r}")
    if kind == "node" and (isinstance(value, bool) or not isinstance(value, (str, int)) or value == ""):
        raise PayloadError(f"record {i}: column {name!r} must be a node id (a string or an integer), "
                           f"e.g. {column['examples'][0]!r}; got {str(value)[:80]!r}")
    if kind == "image" and not (isinstance(value, str) and len(value) > 16):
        raise PayloadError(f"record {i}: column {name!r} must be a base64-encoded PNG or JPEG image")
    if kind == "series" and (not isinstance(value, list) or len(value) < column["length"]
                             or not all(v is None or _is_number(v) for v in value)):
        raise PayloadError(f"record {i}: column {name!r} must be a list of at least {column['length']} finite "
                           f"numbers (the most recent last), got {str(value)[:80]}")


def records_frame(records: list[dict[str, Any]], schema: dict[str, Any]) -> pd.DataFrame:
    """Checked records as the model's input frame, column by column from plain lists (this runs once per batch on
    the serving path): the training table's dtypes (`typed_frame`'s rule), missing values as NaN/None."""
    data: dict[str, Any] = {}
    for column in schema["columns"]:
        name, kind = column["name"], column["type"]
        values = [record.get(name) for record in records]  # a column left out (optional) is missing in the row
        if kind == "number":
            numbers = np.array([np.nan if v is None else v for v in values], dtype="float64")
            integral = not np.isnan(numbers).any() and bool((numbers == np.round(numbers)).all())
            data[name] = numbers.astype("int64") if column.get("integer") and integral else numbers
        elif kind == "series":
            n = column["length"]
            data[name] = pd.Series([[np.nan if x is None else float(x) for x in v[-n:]] for v in values], dtype=object)
        elif kind in ("category", "text"):  # read as the training table was (whitespace, control characters)
            data[name] = pd.Series([None if v is None else clean_label(str(v)) for v in values], dtype=object)
        else:
            data[name] = pd.Series([None if v is None else str(v) for v in values], dtype=object)
    return pd.DataFrame(data, columns=[c["name"] for c in schema["columns"]])
