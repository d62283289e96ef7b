"""What the delivered model does on the held-out rows, measured in the flow: the report's plots and the demo's
examples are drawn from this, not from anything the training script claims about itself.

The model is the one the flow loaded as skops (trusted types only); the rows are the test rows the script named in
split.json. Collecting never fails a run: a problem becomes `unavailable`, and the report says so."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from ..agents.contracts import CLASSIFICATION_TASKS as CLASSIFICATION
from ..data.io import read_as_the_scripts_do
from ..trainkit.splits import read_split

MAX_ROWS = 5000  # held-out rows kept for the plots: enough for smooth curves, small enough for run.json's neighbour
MAX_EXAMPLES = 5
# a text encoder or an image network costs far more per row than a table model: fewer rows, the same pictures
ROW_LIMITS = {"text_classification": 1000, "image_classification": 2000}
IMPORTANCE_ROWS = 1000
MAX_REFERENCE = 300


class ForecastWindow(BaseModel):
    history: list[float]
    actual: list[float]
    forecast: list[float]


class HeldOutEvidence(BaseModel):
    task: str
    target: str | None = None
    n_rows: int = 0
    y_true: list[Any] = Field(default_factory=list)
    y_pred: list[Any] = Field(default_factory=list)
    classes: list[str] | None = None
    proba: list[list[float]] | None = Field(default=None, description="one row per held-out row, columns = classes")
    windows: list[ForecastWindow] = Field(default_factory=list)
    projection: list[list[float]] | None = Field(default=None, description="clustering: 2-D PCA of the encoded rows")
    projection_note: str = ""
    feature_importance: dict[str, float] = Field(default_factory=dict)
    importance_scoring: str = ""
    examples: list[dict[str, Any]] = Field(default_factory=list, description="held-out input rows for the demo")
    example_truth: list[Any] = Field(default_factory=list)
    reference: list[dict[str, Any]] = Field(default_factory=list, description="clustering: held-out rows the demo "
                                                                               "shows as a new row's nearest examples")
    typical_error: float | None = Field(default=None, description="mean absolute error on the held-out rows")
    scores: dict[str, float] = Field(default_factory=dict, description="the task's metrics on these held-out rows, "
                                                                       "measured here (what the champion gate compares)")
    unavailable: str = ""


def collect(model: Any, task: str, data_path: str, attempt: Path, schema: dict[str, Any], *, pos_label: str | None = None,
            pictures: bool = True) -> HeldOutEvidence:
    """`pictures=False` measures the scores only (no importance, projection or examples): how a champion is
    judged on a challenger's held-out rows."""
    try:
        split = read_split(attempt / "split.json")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if task == "time_series_forecasting":
                evidence = _forecast(model, task, Path(data_path), split)
            elif task == "node_classification":
                evidence = _nodes(model, task, Path(data_path), split)
            else:
                evidence = _rows(model, task, Path(data_path), split, schema, pictures)
            evidence.scores = evidence.scores or _scores(evidence, pos_label)
            return evidence
    except Exception as exc:  # noqa: BLE001 - the report loses plots, the run loses nothing
        return HeldOutEvidence(task=task, target=schema.get("target"),
                               unavailable=f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}")


def _thin(n: int, limit: int) -> np.ndarray:
    return np.arange(n) if n <= limit else np.sort(np.random.default_rng(0).choice(n, limit, replace=False))


def _examples(labels: list, n: int) -> np.ndarray:
    """Positions of up to MAX_EXAMPLES held-out rows; for classes, one of each class first (a demo whose examples
    are all the majority class shows little), then the rest at random."""
    if not labels:
        return _thin(n, MAX_EXAMPLES)
    order = np.random.default_rng(0).permutation(n)
    first_of_each = list(dict.fromkeys(labels[i] for i in order))[:MAX_EXAMPLES]
    picked = [next(i for i in order if labels[i] == label) for label in first_of_each]
    chosen = set(picked)
    picked += [i for i in order if i not in chosen][: MAX_EXAMPLES - len(picked)]
    return np.asarray(picked)


def _plain(values) -> list[Any]:
    return [v.item() if hasattr(v, "item") else v for v in values]


def _scores(evidence: HeldOutEvidence, pos_label: str | None) -> dict[str, float]:
    """The task's metrics on the held-out rows, from what the model answered here."""
    from ..trainkit.evaluation import classification_metrics, regression_metrics

    if evidence.task == "tabular_clustering":
        return {}  # measured in _rows, where the encoded rows are at hand
    if not evidence.y_true or len(evidence.y_true) != len(evidence.y_pred):
        return {}
    if evidence.task in CLASSIFICATION:
        labels = sorted(set(evidence.y_true))
        pos = pos_label if pos_label is not None else (labels[-1] if len(labels) == 2 else None)
        positive = None
        if pos is not None and evidence.proba and evidence.classes and pos in evidence.classes:
            positive = np.asarray(evidence.proba)[:, evidence.classes.index(pos)]
        return classification_metrics(evidence.y_true, evidence.y_pred, positive, pos)
    return regression_metrics(evidence.y_true, evidence.y_pred)


def _rows(model, task: str, data_path: Path, split: dict, schema: dict, pictures: bool = True) -> HeldOutEvidence:
    frame = read_as_the_scripts_do(data_path)
    features, target = split["features"], split.get("target")
    test = pd.Index(split["test_index"])
    test = test[_thin(len(test), ROW_LIMITS.get(task, MAX_ROWS))]
    X = frame.loc[test, features]
    evidence = HeldOutEvidence(task=task, target=target, n_rows=len(X))
    y = frame.loc[test, target] if target and target in frame else None
    shown = X  # the rows as a person gives them (image paths), kept for the demo's examples
    if task == "image_classification":  # the delivered model takes image bytes only, never a server path
        X = images_as_base64(X, data_path.parent)
    pred = np.asarray(model.predict(X))
    evidence.y_pred = _plain(pred.astype(str) if task in CLASSIFICATION or task == "tabular_clustering" else pred)
    if y is not None:
        evidence.y_true = _plain(y.astype(str) if task in CLASSIFICATION or task == "tabular_clustering" else y)
    if task in CLASSIFICATION and hasattr(model, "predict_proba"):
        evidence.classes = [str(c) for c in getattr(model, "classes_", schema.get("classes") or [])]
        evidence.proba = np.round(np.asarray(model.predict_proba(X), dtype=float), 5).tolist()
    if task == "tabular_regression" and y is not None:
        evidence.typical_error = float(np.mean(np.abs(np.asarray(y, dtype=float) - pred.astype(float))))
    if task == "tabular_clustering":
        evidence.scores = _clustering_scores(model, X, pred, evidence.y_true or None)
    if not pictures:
        return evidence
    if task == "tabular_clustering":
        _project(model, X, evidence)
        evidence.reference = json.loads(X.iloc[_thin(len(X), MAX_REFERENCE)].to_json(orient="records"))
    if task in {"tabular_classification", "tabular_regression"} and y is not None:
        _importance(model, X, y, task, evidence)
    picked = _examples(evidence.y_true if task in CLASSIFICATION else [], len(X))
    evidence.examples = json.loads(shown.iloc[picked].to_json(orient="records"))
    evidence.example_truth = [evidence.y_true[i] for i in picked] if evidence.y_true else []
    return evidence


def _clustering_scores(model, X: pd.DataFrame, pred: np.ndarray, truth: list | None) -> dict[str, float]:
    from ..trainkit.evaluation import clustering_metrics

    encoded = model[:-1].transform(X) if hasattr(model, "steps") else None
    if encoded is not None:
        encoded = encoded.toarray() if hasattr(encoded, "toarray") else np.asarray(encoded, dtype=float)
    return clustering_metrics(encoded, pred, truth)  # no encoder: the agreement with the labels only


def images_as_base64(X: pd.DataFrame, base_dir: Path) -> pd.DataFrame:
    from ..trainkit.runtime import image_to_base64

    column = X.columns[0]
    paths = [Path(str(p)) if Path(str(p)).is_absolute() else base_dir / str(p) for p in X[column]]
    return pd.DataFrame({column: [image_to_base64(str(p)) for p in paths]}, index=X.index)


def _project(model, X: pd.DataFrame, evidence: HeldOutEvidence) -> None:
    """The rows as the clustering model sees them (its encoder's output), flattened to 2-D by PCA."""
    from sklearn.decomposition import PCA

    encoded = model[:-1].transform(X) if hasattr(model, "steps") else None
    if encoded is None:
        evidence.projection_note = "the model exposes no encoder; no projection"
        return
    encoded = encoded.toarray() if hasattr(encoded, "toarray") else np.asarray(encoded, dtype=float)
    if encoded.shape[1] < 2:
        evidence.projection = [[float(v), 0.0] for v in encoded[:, 0]]
        evidence.projection_note = "one encoded feature: shown on a line"
        return
    pca = PCA(n_components=2, random_state=0).fit(encoded)
    evidence.projection = np.round(pca.transform(encoded), 5).tolist()
    explained = pca.explained_variance_ratio_.sum()
    evidence.projection_note = f"PCA of the encoded rows; the two axes keep {explained:.0%} of their variance"


def _importance(model, X: pd.DataFrame, y: pd.Series, task: str, evidence: HeldOutEvidence) -> None:
    """Permutation importance on held-out rows: honest for any model (it asks the model, not its internals)."""
    from sklearn.inspection import permutation_importance

    rows = _thin(len(X), IMPORTANCE_ROWS)
    scoring = "accuracy" if task == "tabular_classification" else "r2"
    result = permutation_importance(model, X.iloc[rows], y.iloc[rows], scoring=scoring, n_repeats=3, random_state=0)
    order = np.argsort(result.importances_mean)[::-1]
    evidence.feature_importance = {str(X.columns[i]): round(float(result.importances_mean[i]), 5) for i in order}
    evidence.importance_scoring = scoring


def _forecast(model, task: str, data_path: Path, split: dict) -> HeldOutEvidence:
    from ..trainkit.runtime import ordered_series, series_windows

    values, _ = ordered_series(read_as_the_scripts_do(data_path), split["time_column"], split["target"])
    history, horizon = split["input_seq_len"], split["pred_seq_len"]
    X, Y = series_windows(values, split["test_start"], len(values), history, horizon, limit=3000)
    predicted = np.asarray(model.predict(pd.DataFrame({"history": [list(map(float, row)) for row in X]})), dtype=float)
    evidence = HeldOutEvidence(task=task, target=split["target"], n_rows=len(X),
                               typical_error=float(np.mean(np.abs(Y - predicted))))
    for i in np.linspace(0, len(X) - 1, min(3, len(X))).astype(int):
        evidence.windows.append(ForecastWindow(history=np.round(X[i], 6).tolist(), actual=np.round(Y[i], 6).tolist(),
                                               forecast=np.round(predicted[i], 6).tolist()))
    evidence.y_true = np.round(Y.ravel(), 6).tolist()  # every step of every window: what the scores measure
    evidence.y_pred = np.round(predicted.ravel(), 6).tolist()
    evidence.scores = _scores(evidence, None)
    evidence.y_true = np.round(Y[:, 0], 6).tolist()[:MAX_ROWS]  # one step ahead: the residual plot's points
    evidence.y_pred = np.round(predicted[:, 0], 6).tolist()[:MAX_ROWS]
    evidence.examples = [{"history": w.history} for w in evidence.windows]
    evidence.example_truth = []  # a whole future per example: the report draws them, the demo's label would not
    return evidence


def _nodes(model, task: str, data_path: Path, split: dict) -> HeldOutEvidence:
    from ..data.graph import load_graph

    graph = load_graph(data_path, target=split["target"], node_column=split["features"][0])
    test = np.asarray(split["test_index"])[_thin(len(split["test_index"]), MAX_ROWS)]
    nodes = np.asarray(graph.node_ids)[test]
    evidence = HeldOutEvidence(task=task, target=split["target"], n_rows=len(test),
                               y_true=[str(v) for v in np.asarray(graph.labels)[test]],
                               y_pred=[str(v) for v in model.predict(nodes)])
    if hasattr(model, "predict_proba"):
        evidence.classes = [str(c) for c in model.classes_]
        evidence.proba = np.round(np.asarray(model.predict_proba(nodes), dtype=float), 5).tolist()
    picked = _examples(evidence.y_true, len(nodes))
    evidence.examples = [{split["features"][0]: str(nodes[i])} for i in picked]
    evidence.example_truth = [evidence.y_true[i] for i in picked]
    return evidence
