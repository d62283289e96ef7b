"""Prometheus metrics of what a served model answers, beside BentoML's own request metrics on /metrics: records
answered, requests refused, and the predictions themselves (a count per class, or a histogram of values with
buckets at the training predictions' deciles), so a dashboard shows the answers shifting as it happens."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .view import PREDICTION, prediction_value

NUMERIC_TASKS = {"tabular_regression", "time_series_forecasting"}
MAX_CLASS_LABELS = 50
OTHER = "(other)"


def _buckets(reference: Path | None) -> list[float] | None:
    if reference is None or not reference.is_file():
        return None
    import pandas as pd

    values = pd.to_numeric(pd.read_parquet(reference, columns=[PREDICTION])[PREDICTION], errors="coerce").dropna()
    if values.empty:
        return None
    edges = sorted(set(np.round(np.quantile(values, np.linspace(0.1, 0.9, 9)), 6).tolist()))
    return [*edges, float("inf")]


_CREATED: dict[str, object] = {}


def _once(kind, name: str, *args, **kwargs):
    """A metric is registered once per process (prometheus_client refuses a second registration of a name)."""
    if name not in _CREATED:
        _CREATED[name] = kind(name, *args, **kwargs)
    return _CREATED[name]


def count_abandoned_request() -> None:
    """One more request whose client hung up before its answer (see automl_agent.serving.disconnect)."""
    from prometheus_client import Counter  # created on first use, after BentoML has set its multiprocess folder

    _once(Counter, "automl_agent_abandoned_requests", "Requests whose client hung up before the answer; "
                                                      "their records left the batch queue if still waiting").inc()


class PredictionMetrics:
    def __init__(self, schema: dict[str, Any], reference: Path | None = None):
        from prometheus_client import Counter, Histogram  # BentoML sets the multiprocess folder before this runs

        self.task = schema["task"]
        self.records = _once(Counter, "automl_agent_records", "Records the model answered")
        self.refused = _once(Counter, "automl_agent_refused_requests", "Requests refused with a 400 (what was wrong: "
                                                                       "the response body)")
        self.classes = {str(c) for c in (schema.get("classes") or [])[:MAX_CLASS_LABELS]}
        self.seen: set[Any] = set()  # labels of a task without a class list (clusters), up to the cap
        if self.task in NUMERIC_TASKS:
            buckets = _buckets(reference)
            self.values = _once(Histogram, "automl_agent_prediction_value", "Predicted values",
                                **({"buckets": buckets} if buckets else {}))
            self.counts = None
        else:
            self.values = None
            self.counts = _once(Counter, "automl_agent_predictions", "Predictions per class (cluster, node class)",
                                labelnames=["prediction"])

    def answered(self, predictions: Sequence[Any]) -> None:
        self.records.inc(len(predictions))
        for prediction in predictions:
            value = prediction_value(prediction, self.task)
            if self.values is not None:
                if value is not None:
                    self.values.observe(value)
            elif self.counts is not None:
                if not self.classes and len(self.seen) < MAX_CLASS_LABELS:
                    self.seen.add(value)
                label = value if value in (self.classes or self.seen) else OTHER
                self.counts.labels(prediction=str(label)[:100]).inc()

    def refused_request(self) -> None:
        self.refused.inc()
