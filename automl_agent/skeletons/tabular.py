"""Training pipeline for a tabular task, written by automl-agent's operation agent from the task skeleton.

Inputs: CONFIG below (data path, target, features, candidates with search spaces, budget).
Outputs, in the working directory: model/model.joblib, model/schema.json, results.json.
Progress: one line per Optuna trial on stdout, prefixed with "PROGRESS ".
It must not use the network, read secrets, or start a server.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import time
import warnings
from pathlib import Path

import joblib
import numpy as np
import optuna
import pandas as pd
from sklearn import metrics as skm
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.pipeline import Pipeline

from automl_agent.runtime import FrameEncoder, forget_embeddings
from automl_agent.search import enqueue_defaults, progress_printer, sample_params

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.WARNING)

CONFIG: dict = {}  # filled in by the operation agent

TASK = CONFIG["task"]
SEED = CONFIG.get("seed", 0)
N_JOBS = CONFIG.get("n_jobs") or os.cpu_count() or 1
SCALED_MODELS = {"logistic_regression", "ridge", "kmeans", "gaussian_mixture", "birch"}
CLASSIFICATION = TASK in ("tabular_classification", "text_classification")
TEXT = list(CONFIG.get("text") or [])  # free-text columns (text classification)


# ---------------------------------------------------------------- data
def load_data() -> pd.DataFrame:
    path = Path(CONFIG["data_path"])
    frame = pd.read_parquet(path) if path.suffix.lower() in {".parquet", ".pq"} else pd.read_csv(path, sep=None, engine="python") \
        if path.suffix.lower() in {".tsv", ".txt"} else pd.read_csv(path)
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def split_data(frame: pd.DataFrame):
    features = CONFIG["numeric"] + CONFIG["categorical"] + TEXT
    target = CONFIG.get("target")
    frame = frame.dropna(subset=[target]) if target else frame
    X = frame[features]
    y = frame[target] if target else None
    stratify = y if CLASSIFICATION and y.value_counts().min() >= 2 else None
    if y is None:
        X_train, X_test = train_test_split(X, test_size=CONFIG["test_size"], random_state=SEED)
        return X_train, X_test, None, None
    return train_test_split(X, y, test_size=CONFIG["test_size"], random_state=SEED, stratify=stratify)


def build_preprocessor(model_key: str, params: dict | None = None):
    """Median imputation, optional standardisation, one-hot encoding (top levels; unseen -> all zeros); free text
    becomes TF-IDF n-grams, or sentence embeddings from a frozen pretrained encoder for the minilm models."""
    if TEXT:
        from automl_agent.runtime import TextEncoder
        params = params or {}
        return TextEncoder(text=TEXT, numeric=CONFIG["numeric"], categorical=CONFIG["categorical"],
                           kind="minilm" if model_key.startswith("minilm") else "tfidf",
                           max_features=params.get("max_features", 50000), ngram_max=params.get("ngram_max", 2),
                           char_ngrams=params.get("char_ngrams", False))
    return FrameEncoder(numeric=CONFIG["numeric"], categorical=CONFIG["categorical"], scale=model_key in SCALED_MODELS)


PREPROCESSOR_PARAMS = {"max_features", "ngram_max", "char_ngrams"}


# ---------------------------------------------------------------- models
def make_estimator(key: str, params: dict):
    params = dict(params)
    if TASK == "tabular_regression":
        log_target = params.pop("log_target", False)
    if key == "lightgbm":
        import lightgbm as lgb
        cls = lgb.LGBMClassifier if CLASSIFICATION else lgb.LGBMRegressor
        if params.get("subsample", 1.0) < 1.0:
            params["subsample_freq"] = 1
        est = cls(random_state=SEED, n_jobs=N_JOBS, verbosity=-1, **params)
    elif key == "hist_gradient_boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
        cls = HistGradientBoostingClassifier if CLASSIFICATION else HistGradientBoostingRegressor
        est = cls(random_state=SEED, **params)
    elif key in {"random_forest", "extra_trees"}:
        from sklearn import ensemble
        name = ("RandomForest" if key == "random_forest" else "ExtraTrees") + ("Classifier" if CLASSIFICATION else "Regressor")
        if not CLASSIFICATION:
            params.pop("class_weight", None)
        est = getattr(ensemble, name)(random_state=SEED, n_jobs=N_JOBS, **params)
    elif key in {"logistic_regression", "tfidf_logistic_regression", "minilm_logistic_regression"}:
        from sklearn.linear_model import LogisticRegression
        est = LogisticRegression(max_iter=2000, **params)
    elif key == "tfidf_linear_svm":
        from sklearn.svm import LinearSVC
        est = LinearSVC(**params)
    elif key == "tfidf_complement_nb":
        from sklearn.naive_bayes import ComplementNB
        est = ComplementNB(**params)
    elif key == "ridge":
        from sklearn.linear_model import Ridge
        est = Ridge(**params)
    elif key == "kmeans":
        from sklearn.cluster import KMeans
        est = KMeans(random_state=SEED, n_init=10, **params)
    elif key == "gaussian_mixture":
        from sklearn.mixture import GaussianMixture
        est = GaussianMixture(random_state=SEED, **params)
    elif key == "birch":
        from sklearn.cluster import Birch
        est = Birch(**params)
    else:
        raise ValueError(f"unknown model key {key!r}")
    if TASK == "tabular_regression" and log_target:
        from sklearn.compose import TransformedTargetRegressor
        est = TransformedTargetRegressor(regressor=est, func=np.log1p, inverse_func=np.expm1)
    return est


def make_pipeline(key: str, params: dict) -> Pipeline:
    features = {k: v for k, v in params.items() if k in PREPROCESSOR_PARAMS}
    model_params = {k: v for k, v in params.items() if k not in PREPROCESSOR_PARAMS}
    return Pipeline([("preprocess", build_preprocessor(key, features)), ("model", make_estimator(key, model_params))])


# ---------------------------------------------------------------- metrics
def positive_label(y: pd.Series):
    counts = y.value_counts()
    return counts.index[-1] if len(counts) == 2 else None


def classification_metrics(y_true, y_pred, proba=None, pos_label=None) -> dict:
    out = {"accuracy": skm.accuracy_score(y_true, y_pred)}
    if pos_label is not None:
        out["f1"] = skm.f1_score(y_true, y_pred, pos_label=pos_label)
        out["precision"] = skm.precision_score(y_true, y_pred, pos_label=pos_label, zero_division=0)
        out["recall"] = skm.recall_score(y_true, y_pred, pos_label=pos_label)
        if proba is not None:
            out["roc_auc"] = skm.roc_auc_score((np.asarray(y_true) == pos_label).astype(int), proba)
    else:
        out["f1"] = skm.f1_score(y_true, y_pred, average="macro")
        out["precision"] = skm.precision_score(y_true, y_pred, average="macro", zero_division=0)
        out["recall"] = skm.recall_score(y_true, y_pred, average="macro")
    return {k: float(v) for k, v in out.items()}


def regression_metrics(y_true, y_pred) -> dict:
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    out = {
        "rmse": float(np.sqrt(skm.mean_squared_error(y_true, y_pred))),
        "mae": float(skm.mean_absolute_error(y_true, y_pred)),
        "r2": float(skm.r2_score(y_true, y_pred)),
    }
    if (y_true >= 0).all():
        out["rmsle"] = float(np.sqrt(skm.mean_squared_log_error(y_true, np.clip(y_pred, 0, None))))
    if (np.abs(y_true) > 1e-9).all():
        out["mape"] = float(skm.mean_absolute_percentage_error(y_true, y_pred))
    return out


def clustering_metrics(X_transformed, labels_pred, labels_true=None) -> dict:
    out = {}
    if len(set(labels_pred)) > 1:
        n = min(len(labels_pred), 3000)
        out["silhouette"] = float(skm.silhouette_score(X_transformed[:n], labels_pred[:n]))
    else:
        out["silhouette"] = -1.0
    if labels_true is not None:
        out["rand_index"] = float(skm.rand_score(labels_true, labels_pred))
        out["adjusted_rand_index"] = float(skm.adjusted_rand_score(labels_true, labels_pred))
    return out


def best_threshold(y_true, proba, pos_label) -> tuple[float, float]:
    """The probability threshold that maximises F1 on out-of-fold predictions."""
    truth = (np.asarray(y_true) == pos_label).astype(int)
    best = (0.5, skm.f1_score(truth, (proba >= 0.5).astype(int)))
    for threshold in np.linspace(0.1, 0.9, 81):
        score = skm.f1_score(truth, (proba >= threshold).astype(int))
        if score > best[1]:
            best = (float(threshold), float(score))
    return best


# ---------------------------------------------------------------- search
def cv_splits(X, y):
    if len(X) > CONFIG.get("holdout_above_rows", 20000):
        idx_train, idx_val = train_test_split(np.arange(len(X)), test_size=0.2, random_state=SEED,
                                              stratify=y if CLASSIFICATION else None)
        return [(idx_train, idx_val)]
    if CLASSIFICATION:
        return list(StratifiedKFold(n_splits=CONFIG["cv_folds"], shuffle=True, random_state=SEED).split(X, y))
    return list(KFold(n_splits=CONFIG["cv_folds"], shuffle=True, random_state=SEED).split(X))


def supervised_score(key: str, params: dict, X, y, splits, pos_label, tune_threshold: bool):
    metric = CONFIG["metric"]
    oof_pred, oof_proba, truth = [], [], []
    for train_idx, val_idx in splits:
        pipe = make_pipeline(key, params)
        pipe.fit(X.iloc[train_idx], y.iloc[train_idx])
        X_val = X.iloc[val_idx]
        truth.append(y.iloc[val_idx])
        oof_pred.append(pipe.predict(X_val))
        if pos_label is not None and hasattr(pipe, "predict_proba"):
            classes = list(pipe.classes_)
            oof_proba.append(pipe.predict_proba(X_val)[:, classes.index(pos_label)])
    truth = pd.concat(truth)
    pred = np.concatenate(oof_pred)
    proba = np.concatenate(oof_proba) if oof_proba else None
    threshold = None
    if CLASSIFICATION:
        if tune_threshold and proba is not None:
            threshold, _ = best_threshold(truth, proba, pos_label)
            labels = sorted(truth.unique(), key=lambda v: v == pos_label)
            pred = np.where(proba >= threshold, pos_label, labels[0])
        scores = classification_metrics(truth, pred, proba, pos_label)
    else:
        scores = regression_metrics(truth, pred)
    return scores.get(metric, scores.get("accuracy", scores.get("rmse"))), threshold


def run_search(X_train, y_train, pos_label):
    candidates = CONFIG["candidates"]
    keys = [c["model"] for c in candidates]
    by_key = {c["model"]: c for c in candidates}
    direction = CONFIG["direction"]
    tune_threshold = CLASSIFICATION and CONFIG["metric"] == "f1" and pos_label is not None
    splits = cv_splits(X_train, y_train) if TASK != "tabular_clustering" else None
    sample = X_train.sample(min(len(X_train), 3000), random_state=SEED) if TASK == "tabular_clustering" else None

    def objective(trial: optuna.Trial) -> float:
        key = keys[trial.suggest_categorical("model", list(range(len(keys))))]
        params = sample_params(trial, key, by_key[key]["search_space"])
        params.update(fixed_params(key, params))
        if TASK == "tabular_clustering":
            pipe = make_pipeline(key, params)
            labels = pipe.fit_predict(sample) if hasattr(pipe, "fit_predict") else pipe.fit(sample).predict(sample)
            score = clustering_metrics(pipe[:-1].transform(sample), labels)["silhouette"]
            threshold = None
        else:
            score, threshold = supervised_score(key, params, X_train, y_train, splits, pos_label, tune_threshold)
        trial.set_user_attr("model_key", key)
        trial.set_user_attr("params", params)
        trial.set_user_attr("threshold", threshold)
        return score

    sampler = optuna.samplers.TPESampler(seed=SEED, n_startup_trials=min(8, max(2, CONFIG["max_trials"] // 4)))
    study = optuna.create_study(direction=direction, sampler=sampler)
    enqueue_defaults(study, candidates)  # every candidate's defaults are tried first, best-known first
    started = time.perf_counter()
    study.optimize(objective, n_trials=CONFIG["max_trials"], timeout=CONFIG["hpo_budget_s"],
                   callbacks=[progress_printer(started)],
                   catch=(ValueError, ArithmeticError, MemoryError))
    return study, time.perf_counter() - started


def fixed_params(key: str, params: dict) -> dict:
    """Parameters fixed by the requirements rather than searched (the number of clusters when it is known)."""
    k = CONFIG.get("n_clusters")
    if TASK != "tabular_clustering" or not k:
        return {}
    return {"n_components": k} if key == "gaussian_mixture" else {"n_clusters": k}


# ---------------------------------------------------------------- final model, profile, outputs
def fit_final(key: str, params: dict, threshold, pos_label, X_train, y_train):
    pipe = make_pipeline(key, params)
    started = time.perf_counter()
    if threshold is not None:
        from sklearn.model_selection import FixedThresholdClassifier
        model = FixedThresholdClassifier(pipe, threshold=threshold, pos_label=pos_label, response_method="predict_proba")
        model.fit(X_train, y_train)
    elif TASK == "tabular_clustering":
        model = pipe.fit(X_train)
    else:
        model = pipe.fit(X_train, y_train)
    return model, time.perf_counter() - started


def measure_latency(model, X_test) -> tuple[float, float]:
    """Median and p95 wall time (ms) of predicting one record, as a served model would."""
    rows = [X_test.iloc[[i % len(X_test)]] for i in range(50)]
    model.predict(rows[0])  # warm-up
    timings = []
    deadline = time.perf_counter() + 3.0
    for i in range(200):
        row = rows[i % len(rows)]
        forget_embeddings()  # a served record is new text: its encoding is part of the latency
        t0 = time.perf_counter()
        model.predict(row)
        timings.append((time.perf_counter() - t0) * 1000)
        if time.perf_counter() > deadline and len(timings) >= 20:
            break
    return float(np.median(timings)), float(np.percentile(timings, 95))


def count_parameters(model) -> int | None:
    est = model
    for attr in ("estimator_", "estimator"):
        est = getattr(est, attr, est)
    encoder_parameters = getattr(est[0], "n_parameters_", 0) if isinstance(est, Pipeline) else 0
    own = _estimator_parameters(est[-1] if isinstance(est, Pipeline) else est)
    return None if own is None else own + int(encoder_parameters)


def _estimator_parameters(est) -> int | None:
    est = getattr(est, "regressor_", est)
    if hasattr(est, "booster_"):
        dump = est.booster_.dump_model()
        return int(sum(t["num_leaves"] * 2 - 1 for t in dump["tree_info"]))
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


def write_schema(X_train: pd.DataFrame, y_train, out_dir: Path) -> dict:
    columns = []
    for name in CONFIG["numeric"]:
        series = X_train[name]
        columns.append({"name": name, "type": "number", "min": float(series.min()), "max": float(series.max()),
                        "median": float(series.median()), "integer": bool(pd.api.types.is_integer_dtype(series))})
    for name in CONFIG["categorical"]:
        levels = [str(v) for v in X_train[name].dropna().value_counts().index[:200]]
        columns.append({"name": name, "type": "category", "levels": levels, "mode": levels[0] if levels else ""})
    for name in TEXT:
        columns.append({"name": name, "type": "text", "max_length": int(X_train[name].astype(str).str.len().max())})
    schema = {"task": TASK, "target": CONFIG.get("target"), "columns": columns,
              "classes": [str(c) for c in sorted(pd.Series(y_train).unique())] if CLASSIFICATION else None,
              "example": json.loads(X_train.head(3).to_json(orient="records"))}
    (out_dir / "schema.json").write_text(json.dumps(schema, indent=2))
    return schema


def main() -> int:
    started = time.perf_counter()
    frame = load_data()
    X_train, X_test, y_train, y_test = split_data(frame)
    # the exact split, so that a benchmark baseline can be scored on the same rows
    Path("split.json").write_text(json.dumps({"features": list(X_train.columns), "target": CONFIG.get("target"),
                                              "train_index": X_train.index.tolist(), "test_index": X_test.index.tolist()}))
    pos_label = positive_label(y_train) if CLASSIFICATION else None

    study, hpo_seconds = run_search(X_train, y_train, pos_label)
    completed = [t for t in study.trials if t.value is not None]
    if not completed:
        print("no hyperparameter trial finished", file=sys.stderr)
        return 2
    best = study.best_trial
    key, params, threshold = best.user_attrs["model_key"], best.user_attrs["params"], best.user_attrs["threshold"]
    model, train_seconds = fit_final(key, params, threshold, pos_label, X_train, y_train)

    if CLASSIFICATION:
        pred = model.predict(X_test)
        proba = None
        if pos_label is not None and hasattr(model, "predict_proba"):
            proba = model.predict_proba(X_test)[:, list(model.classes_).index(pos_label)]
        test_metrics = classification_metrics(y_test, pred, proba, pos_label)
    elif TASK == "tabular_regression":
        test_metrics = regression_metrics(y_test, model.predict(X_test))
    else:
        # clustering: the label column (if any) is held out for scoring only, never fitted on
        labels_true = None if y_test is None else y_test.astype(str).to_numpy()
        test_metrics = clustering_metrics(model[:-1].transform(X_test), model.predict(X_test), labels_true)

    latency_ms, latency_p95_ms = measure_latency(model, X_test)
    out_dir = Path("model")
    out_dir.mkdir(exist_ok=True)
    joblib.dump(model, out_dir / "model.joblib")
    write_schema(X_train, y_train, out_dir)
    results = {
        "task": TASK, "metric": CONFIG["metric"], "direction": CONFIG["direction"],
        "metrics": test_metrics, "primary_metric": test_metrics.get(CONFIG["metric"]),
        "cv_score": float(best.value), "best_model": key, "best_params": params, "threshold": threshold,
        "positive_label": None if pos_label is None else str(pos_label),
        "n_trials": len(completed), "hpo_seconds": round(hpo_seconds, 2), "training_time_s": round(train_seconds, 3),
        "latency_ms": round(latency_ms, 4), "latency_p95_ms": round(latency_p95_ms, 4),
        "model_size_mb": round(len(pickle.dumps(model)) / 2**20, 4), "n_parameters": count_parameters(model),
        "n_train": int(len(X_train)), "n_test": int(len(X_test)), "total_seconds": round(time.perf_counter() - started, 2),
        "trials": [{"number": t.number, "model": t.user_attrs.get("model_key"), "value": t.value} for t in completed],
    }
    Path("results.json").write_text(json.dumps(results, indent=2, default=str))
    print("RESULT " + json.dumps({"metric": CONFIG["metric"], "value": results["primary_metric"], "model": key}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
