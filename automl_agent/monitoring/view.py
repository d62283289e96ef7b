"""The monitored view of a record: what drift is measured on, the same for the training sample and for served
traffic. Table columns stay as they are; a text becomes its length in characters and words, an image its size, a
series its length, mean and last value; a node id is left out (it has no distribution to compare). No raw text or
image ever reaches the log, only these numbers."""

from __future__ import annotations

import math
from typing import Any

from ..data.values import clean_label

PREDICTION = "prediction"
MAX_CATEGORY_CHARS = 200


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            return None
    return None if math.isnan(value) or math.isinf(value) else float(value)


def monitored_row(record: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for column in schema["columns"]:
        name, kind, value = column["name"], column["type"], record.get(column["name"])
        if kind == "number":
            row[name] = None if value is None else _number(value)
        elif kind == "category":  # as the model receives it (payload.records_frame cleans it so)
            row[name] = None if value is None else clean_label(str(value))[:MAX_CATEGORY_CHARS]
        elif kind == "text":
            text = "" if value is None else clean_label(str(value))
            row[f"{name}__chars"] = len(text)
            row[f"{name}__words"] = len(text.split())
        elif kind == "image":
            row[f"{name}__kilobytes"] = round(len(str(value or "")) * 3 / 4 / 1024, 3)
        elif kind == "series":
            numbers = [n for n in (_number(v) for v in (value or [])) if n is not None]
            row[f"{name}__length"] = len(value or [])
            row[f"{name}__mean"] = sum(numbers) / len(numbers) if numbers else None
            row[f"{name}__last"] = numbers[-1] if numbers else None
    return row


def prediction_value(value: Any, task: str) -> Any:
    """A prediction as the log keeps it: a class or cluster as text, a number as a number, a forecast by its first
    step (the horizon's other steps follow it closely)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if task in {"tabular_regression", "time_series_forecasting"}:
        return _number(value)
    return None if value is None else str(value)


def numeric_columns(schema: dict[str, Any]) -> list[str]:
    """The view's columns that are numbers (the rest are categories)."""
    names = []
    for column in schema["columns"]:
        kind, name = column["type"], column["name"]
        if kind == "number":
            names.append(name)
        elif kind == "text":
            names += [f"{name}__chars", f"{name}__words"]
        elif kind == "image":
            names.append(f"{name}__kilobytes")
        elif kind == "series":
            names += [f"{name}__length", f"{name}__mean", f"{name}__last"]
    if schema["task"] in {"tabular_regression", "time_series_forecasting"}:
        names.append(PREDICTION)
    return names
