"""What a training script measures about its model: test metrics, serving latency, parameter count, serving schema.

Imported by the generated training scripts, so that every script measures the same way with one tested
implementation, and so that the skeleton the LLM must read and write back stays short."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
from sklearn import metrics as skm
from sklearn.pipeline import Pipeline


def classification_metrics(y_true, y_pred, proba=None, pos_label=None) -> dict:
    """Binary metrics on `pos_label` when it is given (ROC AUC from its probabilities), macro averages otherwise."""
    out = {"accuracy": skm.accuracy_score(y_true, y_pred)}
    if pos_label is not None:
        # the positive class against the rest: a stray third label (a rare class in one split) cannot break it
        truth, said = np.asarray(y_true) == pos_label, np.asarray(y_pred) == pos_label
        out["f1"] = skm.f1_score(truth, said, zero_division=0)
        out["precision"] = skm.precision_score(truth, said, zero_division=0)
        out["recall"] = skm.recall_score(truth, said, zero_division=0)
        if proba is not None and 0 < truth.sum() < len(truth):
            out["roc_auc"] = skm.roc_auc_score(truth.astype(int), proba)
    else:
        out["f1"] = skm.f1_score(y_true, y_pred, average="macro")
        out["precision"] = skm.precision_score(y_true, y_pred, average="macro", zero_division=0)
        out["recall"] = skm.recall_score(y_true, y_pred, average="macro")
    return {k: float(v) for k, v in out.items()}


def label_metrics(y_true, y_pred) -> dict:
    """Accuracy, F1, precision and recall: binary on the last label for two classes, macro-averaged otherwise."""
    labels = sorted(set(y_true))
    return classification_metrics(y_true, y_pred, pos_label=labels[-1] if len(labels) <= 2 else None)


def regression_metrics(y_true, y_pred) -> dict:
    """RMSE, MSE, MAE and R2; RMSLE when no truth is negative, MAPE when none is zero."""
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    out = {
        "rmse": float(np.sqrt(skm.mean_squared_error(y_true, y_pred))),
        "mse": float(skm.mean_squared_error(y_true, y_pred)),
        "mae": float(skm.mean_absolute_error(y_true, y_pred)),
        "r2": float(skm.r2_score(y_true, y_pred)),
    }
    if (y_true >= 0).all():
        out["rmsle"] = float(np.sqrt(skm.mean_squared_log_error(y_true, np.clip(y_pred, 0, None))))
    if (np.abs(y_true) > 1e-9).all():
        out["mape"] = float(skm.mean_absolute_percentage_error(y_true, y_pred))
    return out


def clustering_metrics(X_transformed, labels_pred, labels_true=None) -> dict:
    """Silhouette on at most 3,000 rows (-1 for a single cluster; none without encoded rows); Rand indices against
    held-out labels if any."""
    out = {}
    if X_transformed is None:
        pass
    elif len(set(labels_pred)) > 1:
        n = min(len(labels_pred), 3000)
        out["silhouette"] = float(skm.silhouette_score(X_transformed[:n], labels_pred[:n]))
    else:
        out["silhouette"] = -1.0
    if labels_true is not None:
        out["rand_index"] = float(skm.rand_score(labels_true, labels_pred))
        out["adjusted_rand_index"] = float(skm.adjusted_rand_score(labels_true, labels_pred))
        out["nmi"] = float(skm.normalized_mutual_info_score(labels_true, labels_pred))
    return out


def best_threshold(y_true, proba, pos_label) -> tuple[float, float]:
    """The probability threshold that maximises F1 on out-of-fold predictions, and that F1."""
    truth = (np.asarray(y_true) == pos_label).astype(int)
    best = (0.5, skm.f1_score(truth, (proba >= 0.5).astype(int)))
    for threshold in np.linspace(0.1, 0.9, 81):
        score = skm.f1_score(truth, (proba >= threshold).astype(int))
        if score > best[1]:
            best = (float(threshold), float(score))
    return best


def time_requests(predict: Callable[[Any], Any], requests: list, *, runs: int = 200, before_each: Callable[[], None] | None = None,
                  deadline_s: float = 3.0, min_runs: int = 20, warm_up: bool = True) -> tuple[float, float]:
    """Median and p95 wall time (ms) of `predict` on one request at a time, cycling through `requests`, as a
    served model answers them. `before_each` drops caches a new request would not hit; the loop stops after
    `deadline_s` once `min_runs` are timed."""
    if warm_up:
        predict(requests[0])
    timings: list[float] = []
    deadline = time.perf_counter() + deadline_s
    for i in range(runs):
        if before_each is not None:
            before_each()
        t0 = time.perf_counter()
        predict(requests[i % len(requests)])
        timings.append((time.perf_counter() - t0) * 1000)
        if time.perf_counter() > deadline and len(timings) >= min_runs:
            break
    return float(np.median(timings)), float(np.percentile(timings, 95))


def count_parameters(model) -> int | None:
    """Learned numbers in a fitted scikit-learn model (tree nodes, coefficients, centroids), its encoder's included;
    None where the estimator kind is not known."""
    est = model
    for attr in ("estimator_", "estimator"):
        est = getattr(est, attr, est)
    if hasattr(est, "named_estimators_"):  # a blend: its members' numbers
        counts = [count_parameters(member) for member in est.estimators_]
        return None if None in counts else int(sum(counts))
    encoder_parameters = getattr(est[0], "n_parameters_", 0) if isinstance(est, Pipeline) else 0
    own = _estimator_parameters(est[-1] if isinstance(est, Pipeline) else est)
    return None if own is None else own + int(encoder_parameters)


def _estimator_parameters(est) -> int | None:
    est = getattr(est, "regressor_", est)
    if hasattr(est, "booster_"):
        dump = est.booster_.dump_model()
        return int(sum(t["num_leaves"] * 2 - 1 for t in dump["tree_info"]))
    if hasattr(est, "get_tree_leaf_counts"):  # CatBoost: each symmetric tree's leaf values and one split per level
        leaves = np.asarray(est.get_tree_leaf_counts(), dtype=float)
        n_classes = len(est.classes_) if getattr(est, "classes_", None) is not None else 0
        values_per_leaf = n_classes if n_classes > 2 else 1  # one per class for multiclass, else one
        return int(leaves.sum() * values_per_leaf + np.log2(np.maximum(leaves, 1)).sum())
    if hasattr(est, "estimators_") and hasattr(est.estimators_, "__iter__"):
        return int(sum(getattr(t, "tree_", None).node_count for t in est.estimators_ if hasattr(t, "tree_")))
    if hasattr(est, "coef_"):
        return int(np.size(est.coef_) + np.size(getattr(est, "intercept_", 0)))
    if hasattr(est, "cluster_centers_"):
        return int(np.size(est.cluster_centers_))
    if hasattr(est, "means_"):
        return int(np.size(est.means_) + np.size(est.covariances_) + np.size(est.weights_))
    if hasattr(est, "feature_log_prob_"):
        return int(np.size(est.feature_log_prob_) + np.size(est.class_log_prior_))
    return None


def tabular_schema(X_train: pd.DataFrame, y_train, *, task: str, target: str | None, numeric: list[str],
                   categorical: list[str], text: list[str], classification: bool) -> dict:
    """The input schema the service validates requests against and the demo builds its form from."""
    columns = []
    for name in numeric:
        series = X_train[name]
        columns.append({"name": name, "type": "number", "min": float(series.min()), "max": float(series.max()),
                        "median": float(series.median()), "integer": bool(pd.api.types.is_integer_dtype(series))})
    for name in categorical:
        levels = [str(v) for v in X_train[name].dropna().value_counts().index[:200]]
        columns.append({"name": name, "type": "category", "levels": levels, "mode": levels[0] if levels else ""})
    for name in text:
        columns.append({"name": name, "type": "text", "max_length": int(X_train[name].astype(str).str.len().max())})
    for column in columns:  # the model learnt to do without a column it saw blank: a caller may leave it out
        column["optional"] = bool(X_train[column["name"]].isna().any())
    return {"task": task, "target": target, "columns": columns,
            "classes": [str(c) for c in sorted(pd.Series(y_train).unique())] if classification else None,
            "example": json.loads(X_train.head(3).to_json(orient="records"))}


def _plain_params(trial) -> dict:
    return {k: v if isinstance(v, (int, float, str, bool)) or v is None else str(v)
            for k, v in getattr(trial, "params", {}).items()}


def _distributions(trial) -> dict:
    """Optuna's own JSON for each sampled parameter: the report rebuilds the study to ask Optuna which mattered."""
    try:
        from optuna.distributions import distribution_to_json

        return {k: distribution_to_json(d) for k, d in getattr(trial, "distributions", {}).items()}
    except Exception:  # noqa: BLE001 - a hand-made trial object: no importances, nothing else lost
        return {}


def write_results(results: dict, trials: list) -> None:
    """results.json (with one line per finished Optuna trial) and the RESULT line the flow reads from stdout."""
    from .devices import device_name, training_device

    results = {**results, "device": results.get("device") or device_name(training_device()),
               "trials": [{"number": t.number, "model": t.user_attrs.get("model_key"), "value": t.value,
                           "params": _plain_params(t), "distributions": _distributions(t)} for t in trials]}
    Path("results.json").write_text(json.dumps(results, indent=2, default=str))
    print("RESULT " + json.dumps({"metric": results["metric"], "value": results["primary_metric"],
                                  "model": results["best_model"]}), flush=True)
