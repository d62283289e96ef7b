"""Conventional baselines scored on the very rows the agent's model was tested on (the run's split.json).

Tabular classification and regression: FLAML AutoML with the same time budget. Clustering: k-means with k set to
the number of held label classes on the same encoded features. Text classification: TF-IDF word 1-2-grams with a
default logistic regression (the simplest strong text baseline). Forecasting: the seasonal naive forecast (repeat
the last season) on the same test windows. Images: logistic regression on the pixels. Node classification: logistic
regression on the node features, the graph ignored (the usual graph-free reference of GNN papers)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn import metrics as skm

from ..agents.contracts import TaskType
from ..data.io import read_as_the_scripts_do
from ..trainkit.splits import read_split

FLAML_ESTIMATORS = {"classification": ["lgbm", "xgboost", "rf", "extra_tree", "lrl1"],
                    "regression": ["lgbm", "xgboost", "rf", "extra_tree"]}


BASELINES = {
    "tabular_classification": "FLAML AutoML", "tabular_regression": "FLAML AutoML",
    "tabular_clustering": "k-means (k = label classes)", "text_classification": "TF-IDF + logistic regression",
    "time_series_forecasting": "seasonal naive",
    "image_classification": "logistic regression on pixels",
    "node_classification": "logistic regression on node features (graph ignored)",
}


# baselines a bench run may add beside the default one (`bench --baseline NAME`), and the tasks they score
EXTRA_BASELINES = {"autogluon": {TaskType.tabular_classification.value, TaskType.tabular_regression.value}}


def baseline_name(task: str) -> str:
    return BASELINES.get(task, "-")


def extra_baseline_name(name: str) -> str:
    from .autogluon_baseline import NAME

    return {"autogluon": NAME}[name]


def score_extra_baseline(name: str, task: str, metric: str, data_path: Path, split_path: Path,
                         budget_s: float) -> float | None:
    """An added baseline's score on the run's own test rows; None where it does not apply to the task."""
    if task not in EXTRA_BASELINES[name]:
        return None
    from .autogluon_baseline import fit_and_predict

    split = read_split(split_path)
    frame = read_as_the_scripts_do(data_path)
    X, y = frame[split["features"]], frame[split["target"]]
    train, test = split["train_index"], split["test_index"]
    positive = y.loc[train].value_counts().index[-1] if task == TaskType.tabular_classification.value else None
    predictions = fit_and_predict(task, metric, X, y, train, test, budget_s, positive_label=positive)
    return _score(metric, y.loc[test], predictions, y.loc[train])


def score_baseline(task: str, metric: str, data_path: Path, split_path: Path, budget_s: float, seed: int = 0) -> float | None:
    split = read_split(split_path)
    if task == TaskType.node_classification.value:
        return _node_features_logistic(data_path, split, metric)
    frame = read_as_the_scripts_do(data_path)
    if task == TaskType.time_series_forecasting.value:
        return _seasonal_naive(frame, split, metric)
    if task == TaskType.image_classification.value:
        return _pixels_logistic(frame, split, metric, data_path.parent)
    X, target = frame[split["features"]], split["target"]
    train, test = split["train_index"], split["test_index"]
    if task == TaskType.tabular_clustering.value:
        return _kmeans(X, frame[target].astype(str), test, metric, seed) if target else None
    if task == TaskType.text_classification.value:
        return _tfidf_logistic(X, frame[target], train, test, metric)
    return _flaml(task, metric, X, frame[target], train, test, budget_s, seed)


def _flaml(task, metric, X, y, train, test, budget_s, seed) -> float:
    import logging

    from flaml import AutoML

    logging.getLogger("flaml").setLevel(logging.WARNING)

    X = X.copy()
    for column in X.columns:
        if not pd.api.types.is_numeric_dtype(X[column]):
            X[column] = X[column].astype("category")
    classification = task == TaskType.tabular_classification.value
    automl = AutoML()
    kind = "classification" if classification else "regression"
    # FLAML has no RMSLE: RMSE on log1p(target) is the same goal, as a practitioner would set it up
    log_target = metric == "rmsle" and bool((y.loc[train] >= 0).all())
    y_fit = np.log1p(y.loc[train]) if log_target else y.loc[train]
    with warnings.catch_warnings():  # FLAML's own deprecation warnings are not the user's business
        warnings.simplefilter("ignore")
        automl.fit(X.loc[train], y_fit, task=kind,
                   time_budget=budget_s, metric=_flaml_metric(metric, y, classification), estimator_list=FLAML_ESTIMATORS[kind],
                   seed=seed, verbose=0, n_jobs=-1)
    pred = automl.predict(X.loc[test])
    return _score(metric, y.loc[test], np.expm1(pred) if log_target else pred, y.loc[train])


def _tfidf_logistic(X, y, train, test, metric) -> float:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    texts = X.fillna("").astype(str).agg(" ".join, axis=1)
    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True), LogisticRegression(max_iter=2000))
    model.fit(texts.loc[train], y.loc[train])
    return _score(metric, y.loc[test], model.predict(texts.loc[test]), y.loc[train])


def _seasonal_naive(frame: pd.DataFrame, split: dict, metric: str) -> float:
    from ..trainkit.runtime import WindowForecaster, ordered_series, series_windows

    values, _ = ordered_series(frame, split["time_column"], split["target"])
    history, horizon = split["input_seq_len"], split["pred_seq_len"]
    # the same test windows as the agent's script (which thins them to 3,000)
    X, Y = series_windows(values, split["test_start"], len(values), history, horizon, limit=3000)
    predicted = WindowForecaster(kind="seasonal_naive", input_len=history, horizon=horizon, season=split["season"]).predict(X)
    return _score(metric, pd.Series(Y.ravel()), predicted.ravel(), pd.Series(Y.ravel()))


def _pixels_logistic(frame: pd.DataFrame, split: dict, metric: str, base_dir: Path) -> float:
    from PIL import Image

    from ..trainkit.runtime import ImageClassifier

    column, target = split["features"][0], split["target"]
    with Image.open(base_dir / str(frame[column].iloc[0])) as first:
        side = int(min(max(first.size), 32))
    model = ImageClassifier(kind="pixels_logistic", column=column, size=side, base_dir=str(base_dir))
    train, test = split["train_index"], split["test_index"]
    labels = frame[target].astype(str)
    model.fit(frame.loc[train, [column]], labels.loc[train])
    return _score(metric, labels.loc[test], model.predict(frame.loc[test, [column]]), labels.loc[train])


def _node_features_logistic(data_path: Path, split: dict, metric: str) -> float:
    from sklearn.linear_model import LogisticRegression

    from ..data.graph import load_graph

    graph = load_graph(data_path, target=split["target"], node_column=split["features"][0])
    train, test = split["train_index"], split["test_index"]
    labels = pd.Series(graph.labels)
    model = LogisticRegression(max_iter=1000).fit(graph.features[train], labels.loc[train])
    return _score(metric, labels.loc[test], model.predict(graph.features[test]), labels.loc[train])


def _flaml_metric(metric: str, y: pd.Series, classification: bool) -> str:
    if classification:
        return "f1" if metric == "f1" and y.nunique() == 2 else ("accuracy" if metric != "f1" else "micro_f1")
    return {"rmse": "rmse", "mae": "mae", "r2": "r2"}.get(metric, "rmse")


def _score(metric: str, y_true: pd.Series, y_pred, y_train: pd.Series) -> float:
    if metric == "f1":
        positive = y_train.value_counts().index[-1]  # the minority class, as the agent's script scores it
        return float(skm.f1_score(y_true, y_pred, pos_label=positive)) if y_true.nunique() <= 2 else \
            float(skm.f1_score(y_true, y_pred, average="macro"))
    if metric == "accuracy":
        return float(skm.accuracy_score(y_true, y_pred))
    if metric == "rmse":
        return float(np.sqrt(skm.mean_squared_error(y_true, y_pred)))
    if metric == "mse":
        return float(skm.mean_squared_error(y_true, y_pred))
    if metric == "mae":
        return float(skm.mean_absolute_error(y_true, y_pred))
    if metric == "r2":
        return float(skm.r2_score(y_true, y_pred))
    if metric == "rmsle":
        return float(np.sqrt(skm.mean_squared_log_error(np.clip(y_true, 0, None), np.clip(y_pred, 0, None))))
    if metric == "mape":
        return float(skm.mean_absolute_percentage_error(y_true, y_pred))
    raise ValueError(f"no baseline scorer for {metric}")


def _kmeans(X: pd.DataFrame, labels: pd.Series, test, metric: str, seed: int) -> float:
    from sklearn.cluster import KMeans

    from ..trainkit.runtime import FrameEncoder

    numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]
    categorical = [c for c in X.columns if c not in numeric]
    encoder = FrameEncoder(numeric=numeric, categorical=categorical, scale=True)
    train_rows = X.index.difference(pd.Index(test))
    kmeans = KMeans(n_clusters=labels.nunique(), n_init=10, random_state=seed)
    kmeans.fit(encoder.fit_transform(X.loc[train_rows]))  # fitted on the training rows, as the agent's model is
    pred = kmeans.predict(encoder.transform(X.loc[test]))
    true = labels.loc[test].to_numpy()
    score = {"adjusted_rand_index": skm.adjusted_rand_score, "nmi": skm.normalized_mutual_info_score}.get(metric, skm.rand_score)
    return float(score(true, pred))
