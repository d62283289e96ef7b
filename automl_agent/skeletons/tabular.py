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
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.pipeline import Pipeline

from automl_agent.evaluation import (best_threshold, classification_metrics, clustering_metrics, count_parameters,
                                     regression_metrics, tabular_schema, time_requests, write_results)
from automl_agent.estimators import CLASSIFICATION_TASKS, SCALED_MODELS, make_estimator
from automl_agent.runtime import FrameEncoder, forget_embeddings
from automl_agent.search import enqueue_defaults, progress_printer, suggest_candidate

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.WARNING)

CONFIG: dict = {}  # filled in by the operation agent

TASK = CONFIG["task"]
SEED = CONFIG.get("seed", 0)
N_JOBS = CONFIG.get("n_jobs") or os.cpu_count() or 1
CLASSIFICATION = TASK in CLASSIFICATION_TASKS
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
def make_pipeline(key: str, params: dict) -> Pipeline:
    features = {k: v for k, v in params.items() if k in PREPROCESSOR_PARAMS}
    model_params = {k: v for k, v in params.items() if k not in PREPROCESSOR_PARAMS}
    estimator = make_estimator(key, model_params, task=TASK, seed=SEED, n_jobs=N_JOBS)
    return Pipeline([("preprocess", build_preprocessor(key, features)), ("model", estimator)])


# ---------------------------------------------------------------- labels
def positive_label(y: pd.Series):
    counts = y.value_counts()
    return counts.index[-1] if len(counts) == 2 else None


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
    direction = CONFIG["direction"]
    tune_threshold = CLASSIFICATION and CONFIG["metric"] == "f1" and pos_label is not None
    splits = cv_splits(X_train, y_train) if TASK != "tabular_clustering" else None
    sample = X_train.sample(min(len(X_train), 3000), random_state=SEED) if TASK == "tabular_clustering" else None

    def objective(trial: optuna.Trial) -> float:
        candidate, params = suggest_candidate(trial, candidates)
        key = candidate["model"]
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

    # one record per request, as served; a new text's embedding is part of its latency
    latency_ms, latency_p95_ms = time_requests(model.predict, [X_test.iloc[[i % len(X_test)]] for i in range(50)],
                                               before_each=forget_embeddings)
    out_dir = Path("model")
    out_dir.mkdir(exist_ok=True)
    joblib.dump(model, out_dir / "model.joblib")
    schema = tabular_schema(X_train, y_train, task=TASK, target=CONFIG.get("target"), numeric=CONFIG["numeric"],
                            categorical=CONFIG["categorical"], text=TEXT, classification=CLASSIFICATION)
    (out_dir / "schema.json").write_text(json.dumps(schema, indent=2))
    results = {
        "task": TASK, "metric": CONFIG["metric"], "direction": CONFIG["direction"],
        "metrics": test_metrics, "primary_metric": test_metrics.get(CONFIG["metric"]),
        "cv_score": float(best.value), "best_model": key, "best_params": params, "threshold": threshold,
        "positive_label": None if pos_label is None else str(pos_label),
        "n_trials": len(completed), "hpo_seconds": round(hpo_seconds, 2), "training_time_s": round(train_seconds, 3),
        "latency_ms": round(latency_ms, 4), "latency_p95_ms": round(latency_p95_ms, 4),
        "model_size_mb": round(len(pickle.dumps(model)) / 2**20, 4), "n_parameters": count_parameters(model),
        "n_train": int(len(X_train)), "n_test": int(len(X_test)), "total_seconds": round(time.perf_counter() - started, 2),
    }
    write_results(results, completed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
