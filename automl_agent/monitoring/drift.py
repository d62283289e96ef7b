"""Served traffic against the training reference, column by column, with Evidently: a drift test per column (its
own choice of test by column type and sample size), the prediction's drift, and missing values; an HTML report
and a typed summary that says whether the model has drifted."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
from pydantic import BaseModel

from .view import PREDICTION


class ColumnDrift(BaseModel):
    column: str
    method: str
    score: float | None
    threshold: float
    drifted: bool
    distance: float | None = None  # how far, whatever the sample size: normed Wasserstein, or Jensen-Shannon
    missing_reference: float
    missing_served: float
    went_blank: bool = False  # blank in MISSING_JUMP more of the served records: drift whatever its values
    note: str = ""


class DriftSummary(BaseModel):
    reference_rows: int
    served_rows: int
    columns: list[ColumnDrift]
    prediction: ColumnDrift | None
    drift_share_limit: float
    drifted_share: float
    drifted: bool
    reasons: list[str]

    @property
    def drifted_columns(self) -> list[str]:
        return [c.column for c in self.columns if c.drifted]


def _evidently():
    """Evidently 0.7 imports a private pandas helper that pandas 3 removed, for a legacy type test this code never
    runs; give it the old name before the import. Its usage telemetry stays off."""
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("EVIDENTLY_DISABLE_TELEMETRY", "1")
    import pandas.core.dtypes.common as dtypes

    if not hasattr(dtypes, "infer_dtype_from_object"):
        dtypes.infer_dtype_from_object = lambda dtype: dtype
    import evidently

    return evidently


def measure(reference: pd.DataFrame, served: pd.DataFrame, numeric: list[str], *, drift_share: float = 0.3,
            html_path: Path | None = None) -> DriftSummary:
    evidently = _evidently()
    from evidently.metrics import MissingValueCount
    from evidently.presets import DataDriftPreset

    columns = [c for c in reference.columns if c in served.columns]
    compared = [c for c in columns if served[c].notna().any() and reference[c].notna().any()]
    numeric_now = [c for c in compared if c in numeric]
    categorical = [c for c in compared if c not in numeric]
    ref, cur = _typed(reference[columns], numeric_now), _typed(served[columns], numeric_now)
    definition = evidently.DataDefinition(numerical_columns=numeric_now, categorical_columns=categorical)
    # the preset draws the table a person reads first (columns by drift score) above one section per column
    metrics = [DataDriftPreset(columns=compared, drift_share=drift_share,
                               **_drift_tests(min(len(reference), len(served))))]
    metrics += [MissingValueCount(column=c) for c in columns]
    snapshot = evidently.Report(metrics).run(evidently.Dataset.from_pandas(cur, data_definition=definition),
                                             evidently.Dataset.from_pandas(ref, data_definition=definition))
    if html_path is not None:
        html_path.parent.mkdir(parents=True, exist_ok=True)
        snapshot.save_html(str(html_path))
    tests = {}
    for metric in snapshot.dict()["metrics"]:
        config = metric.get("config", {})
        if config.get("type", "").endswith(":ValueDrift"):
            shown = re.search(r"method=([^,)]*)", metric.get("metric_name", ""))  # "K-S p_value": the test's own name
            method = shown[1] if shown else str(config.get("method", ""))
            tests[config["column"]] = (method, metric.get("value"), float(config.get("threshold") or 0.05))
    results = [_column(c, tests.get(c), ref[c], cur[c], c in numeric_now) for c in columns]
    inputs = [r for r in results if r.column != PREDICTION]
    prediction = next((r for r in results if r.column == PREDICTION), None)
    judged = [r for r in inputs if r.score is not None]
    share = sum(r.drifted for r in judged) / len(judged) if judged else 0.0
    reasons = []
    if judged and share >= drift_share:
        reasons.append(f"{sum(r.drifted for r in judged)} of {len(judged)} input columns drifted "
                       f"({share:.0%}, limit {drift_share:.0%}): {', '.join(r.column for r in judged if r.drifted)}")
    far = [r for r in judged if r.drifted and (r.went_blank or _far(r, ref[r.column], len(served)))]
    if far and not reasons:
        reasons.append("far from training: " + ", ".join(
            f"{r.column} ({r.note})" if r.went_blank else f"{r.column} (distance {r.distance:.2g})"
            for r in far))
    if prediction is not None and prediction.drifted:
        reasons.append(f"the predictions drifted ({prediction.method} {prediction.score:.3g}, threshold "
                       f"{prediction.threshold:g})")
    return DriftSummary(reference_rows=len(reference), served_rows=len(served), columns=inputs, prediction=prediction,
                        drift_share_limit=drift_share, drifted_share=round(share, 4), drifted=bool(reasons),
                        reasons=reasons)


def _typed(frame: pd.DataFrame, numeric: list[str]) -> pd.DataFrame:
    frame = frame.copy()
    for name in frame.columns:
        if name in numeric:
            frame[name] = pd.to_numeric(frame[name], errors="coerce")
        else:
            frame[name] = frame[name].map(lambda v: None if v is None or v != v else str(v))
    return frame


SMALL_SAMPLE = 1000
P_VALUE_TESTS = {"ks", "chisquare", "z", "fisher_exact", "t_test", "mannw", "anderson", "g_test", "cramer_von_mises",
                 "epps_singleton", "empirical_mmd"}  # named so when chosen here; Evidently's own choice says p_value
P_VALUE = 0.01


def _drift_tests(smaller_sample: int) -> dict:
    """Evidently picks its test by the reference's size alone: a distance (Wasserstein, Jensen-Shannon) against a
    large training sample, whose noise on a few hundred served records alone passes its 0.1 threshold. Below a
    thousand records on either side, a test that knows the sample size decides (Kolmogorov-Smirnov, chi-square; p
    under 0.01, so that twenty columns tested give few false alarms); above, Evidently's distances."""
    if smaller_sample <= SMALL_SAMPLE:
        return {"num_method": "ks", "cat_method": "chisquare", "threshold": P_VALUE}
    return {}


MISSING_JUMP = 0.2  # a column blank in 20 % more of the served records than in training has drifted, whatever its values


FAR = 0.1  # one column this far from training is drift whatever the others do (Evidently's own distance threshold)


def _distance(reference: pd.Series, served: pd.Series, numeric: bool) -> float | None:
    """The size of a shift, comparable across sample sizes: for numbers the Wasserstein distance in units of the
    training values' spread; for categories the Jensen-Shannon distance (base 2, 0 to 1) of their frequencies."""
    from scipy.spatial.distance import jensenshannon
    from scipy.stats import wasserstein_distance

    ref, cur = reference.dropna(), served.dropna()
    if ref.empty or cur.empty:
        return None
    if numeric:
        spread = float(ref.std(ddof=0))
        moved = float(wasserstein_distance(ref.astype(float), cur.astype(float)))
        return moved / spread if spread > 0 else (0.0 if moved == 0 else float("inf"))
    levels = sorted(set(ref) | set(cur))
    expected = ref.value_counts(normalize=True).reindex(levels, fill_value=0).to_numpy()
    observed = cur.value_counts(normalize=True).reindex(levels, fill_value=0).to_numpy()
    return float(jensenshannon(expected, observed, base=2))


def _far(result: ColumnDrift, reference: pd.Series, n_served: int, draws: int = 20) -> bool:
    """At least FAR, and at least twice what the training values' own sampling noise reaches at this many records
    (the 95th percentile of the distance between the training values and samples of them of the served size): a
    few hundred records of a many-valued column are 0.1 apart from training by chance alone."""
    if result.distance is None or result.distance < FAR:
        return False
    numeric = pd.api.types.is_numeric_dtype(reference)
    rng = np.random.default_rng(0)
    values = reference.to_numpy()
    noise = [_distance(reference, pd.Series(rng.choice(values, size=n_served, replace=True)), numeric) or 0.0
             for _ in range(draws)]
    return result.distance >= 2 * float(np.quantile(noise, 0.95))


def _column(name: str, test: tuple[str, object, float] | None, reference: pd.Series, served: pd.Series,
            numeric: bool = False) -> ColumnDrift:
    missing_reference, missing_served = float(reference.isna().mean()), float(served.isna().mean())
    more_missing = missing_served - missing_reference >= MISSING_JUMP
    missing = dict(missing_reference=round(missing_reference, 4), missing_served=round(missing_served, 4),
                   went_blank=more_missing)
    note = (f"blank in {missing_served:.0%} of the served records, {missing_reference:.0%} in training"
            if more_missing else "")
    if test is None or test[1] is None:
        return ColumnDrift(column=name, method="", score=None if not more_missing else 1.0, threshold=0.0,
                           drifted=more_missing, **missing, note=note or "not compared")
    method, value, threshold = test
    score = float(value)
    p_value = "p_value" in method or method in P_VALUE_TESTS
    drifted = (score < threshold if p_value else score >= threshold) or more_missing
    distance = _distance(reference, served, numeric)
    return ColumnDrift(column=name, method=method, score=round(score, 6), threshold=threshold, drifted=drifted,
                       distance=None if distance is None else round(distance, 4), **missing, note=note)
