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

from automl_agent.trainkit.evaluation import (best_threshold, classification_metrics, clustering_metrics, count_parameters,
                                     regression_metrics, tabular_schema, time_requests, write_results)
from automl_agent import ensembling
from automl_agent.trainkit.estimators import (CLASSIFICATION_TASKS, ROUNDS_PARAM, SCALED_MODELS, TrainingDeadline,
                                     fit_within, make_estimator, prefers_log_target)
from automl_agent.trainkit.clustering import choose_representation, k_params
from automl_agent.trainkit.runtime import ClusterSpace, FrameEncoder, forget_embeddings
from automl_agent.trainkit.search import enqueue_defaults, progress_printer, suggest_candidate, trial_time_limit

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.WARNING)

CONFIG: dict = {}  # filled in by the operation agent

TASK = CONFIG["task"]
SEED = CONFIG.get("seed", 0)
N_JOBS = CONFIG.get("n_jobs") or os.cpu_count() or 1
CLASSIFICATION = TASK in CLASSIFICATION_TASKS
TEXT = list(CONFIG.get("text") or [])  # free-text columns (text classification)
SCRIPT_STARTED = time.perf_counter()


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
    stratify = y if stratifiable(y) else None
    if y is None:
        X_train, X_test = train_test_split(X, test_size=CONFIG["test_size"], random_state=SEED)
        return X_train, X_test, None, None
    # rows with the same inputs stay on one side, whatever their labels: grouping by inputs and label instead sent a
    # row's copies with one label to training and those with the other to the test (an inverted model on smokeban)
    copies = pd.util.hash_pandas_object(X, index=False)
    if copies.duplicated().any():
        return split_keeping_copies_together(X, y, copies)
    return train_test_split(X, y, test_size=CONFIG["test_size"], random_state=SEED, stratify=stratify)


def stratifiable(y, test_size: float | None = None) -> bool:
    """A stratified split needs two rows of every class and at least one test row per class (no labels: no)."""
    if not CLASSIFICATION or y is None:
        return False
    n_rows = len(y)
    counts = pd.Series(y).value_counts()
    test_rows = int(np.ceil(n_rows * (test_size or CONFIG["test_size"])))
    return counts.min() >= 2 and test_rows >= len(counts) and n_rows - test_rows >= len(counts)


SPLIT_NOTES: dict = {}  # what the split did beyond splitting, for results.json


def split_keeping_copies_together(X, y, copies):
    """Rows with the same inputs go to the same side of the split: a test row whose copy was trained on would be
    scored as if the model generalised to it. The count goes to results.json."""
    first = ~copies.duplicated()
    distinct_y = y[first.to_numpy()]
    stratify = distinct_y if stratifiable(distinct_y) else None
    _, test_keys = train_test_split(copies[first.to_numpy()], test_size=CONFIG["test_size"], random_state=SEED,
                                    stratify=stratify)
    test = copies.isin(set(test_keys)).to_numpy()
    SPLIT_NOTES["repeated_rows_kept_on_one_side"] = int(copies.duplicated().sum())
    return X[~test], X[test], y[~test], y[test]


def build_preprocessor(model_key: str, params: dict | None = None):
    """Median imputation, optional standardisation, one-hot encoding (top levels; unseen -> all zeros); free text
    becomes TF-IDF n-grams, or sentence embeddings from a frozen pretrained encoder for the minilm models."""
    if TEXT:
        from automl_agent.trainkit.runtime import TextEncoder
        params = params or {}
        return TextEncoder(text=TEXT, numeric=CONFIG["numeric"], categorical=CONFIG["categorical"],
                           kind="minilm" if model_key.startswith("minilm") else "tfidf",
                           max_features=params.get("max_features", 50000), ngram_max=params.get("ngram_max", 2),
                           char_ngrams=params.get("char_ngrams", False))
    return FrameEncoder(numeric=CONFIG["numeric"], categorical=CONFIG["categorical"], scale=model_key in SCALED_MODELS)


PREPROCESSOR_PARAMS = {"max_features", "ngram_max", "char_ngrams"}


# ---------------------------------------------------------------- models
REPRESENTATION: dict = {"kind": "scaled"}  # clustering: set once from the training rows (clustering.choose_representation)


def make_pipeline(key: str, params: dict) -> Pipeline:
    features = {k: v for k, v in params.items() if k in PREPROCESSOR_PARAMS}
    model_params = {k: v for k, v in params.items() if k not in PREPROCESSOR_PARAMS}
    estimator = make_estimator(key, model_params, task=TASK, seed=SEED, n_jobs=N_JOBS)
    if TASK == "tabular_clustering":
        return Pipeline([("preprocess", FrameEncoder(numeric=CONFIG["numeric"], categorical=CONFIG["categorical"])),
                         ("represent", ClusterSpace(n_numeric=len(CONFIG["numeric"]), kind=REPRESENTATION["kind"])),
                         ("model", estimator)])
    return Pipeline([("preprocess", build_preprocessor(key, features)), ("model", estimator)])


# ---------------------------------------------------------------- labels
def positive_label(y: pd.Series):
    counts = y.value_counts()
    return counts.index[-1] if len(counts) == 2 else None


# ---------------------------------------------------------------- search
def cv_splits(X, y):
    if len(X) > CONFIG.get("holdout_above_rows", 20000):
        idx_train, idx_val = train_test_split(np.arange(len(X)), test_size=0.2, random_state=SEED,
                                              stratify=y if stratifiable(y, 0.2) else None)
        return [(idx_train, idx_val)]
    if CLASSIFICATION:
        return list(StratifiedKFold(n_splits=CONFIG["cv_folds"], shuffle=True, random_state=SEED).split(X, y))
    return list(KFold(n_splits=CONFIG["cv_folds"], shuffle=True, random_state=SEED).split(X))


def holdout_split(splits) -> bool:
    """Large tables are validated on one holdout split; there a trial is first trained on a third of the rows, and
    Optuna's successive halving stops those that rank in the bottom two thirds at that size (sampled trials only:
    the knowledge base's defaults and warm starts always finish, as the blend needs each family's best-known
    model, and a slow-learning warm start ranks low on a third of the rows)."""
    return len(splits) == 1 and not TEXT


def fit_and_predict(key: str, params: dict, X_fit, y_fit, X_val, pos_label, deadline=None):
    pipe = make_pipeline(key, params)
    fit_within(pipe, X_fit, y_fit, key, deadline)
    if not CLASSIFICATION:
        return pipe.predict(X_val), None
    proba = pipe.predict_proba(X_val) if hasattr(pipe, "predict_proba") else None
    return pipe.predict(X_val), (proba, list(pipe.classes_))


def on_classes(proba, fitted: list, classes: list) -> np.ndarray:
    """A fold's probabilities over every class: a fold whose training rows lack a rare class gives it 0."""
    if list(fitted) == list(classes):
        return proba
    full = np.zeros((len(proba), len(classes)))
    for j, label in enumerate(fitted):
        full[:, classes.index(label)] = proba[:, j]
    return full


def score_predictions(truth, pred, proba, classes, pos_label, tune_threshold: bool):
    """The metric of out-of-fold predictions; for F1 on two classes the threshold is tuned on them first."""
    metric = CONFIG["metric"]
    threshold = None
    if CLASSIFICATION:
        positive = None if proba is None or pos_label is None else proba[:, classes.index(pos_label)]
        if proba is not None and pred is None:
            pred = np.asarray(classes, dtype=object)[proba.argmax(axis=1)]
        if tune_threshold and positive is not None:
            threshold, _ = best_threshold(truth, positive, pos_label)
            labels = sorted(truth.unique(), key=lambda v: v == pos_label)
            pred = np.where(positive >= threshold, pos_label, labels[0])
        scores = classification_metrics(truth, pred, positive, pos_label)
    else:
        scores = regression_metrics(truth, pred)
    return scores.get(metric, scores.get("accuracy", scores.get("rmse"))), threshold


def supervised_score(trial, key: str, params: dict, X, y, splits, pos_label, tune_threshold: bool, prunable: bool,
                     deadline=None):
    """The trial's validation score, its tuned threshold, and its out-of-fold predictions (probabilities for
    classes) for ensemble selection. A boosting model or forest stops growing at `deadline`."""
    if holdout_split(splits):
        train_idx, val_idx = splits[0]
        third = train_idx[: max(200, len(train_idx) // 3)]
        pred, probs = fit_and_predict(key, params, X.iloc[third], y.iloc[third], X.iloc[val_idx], pos_label, deadline)
        early, _ = score_predictions(y.iloc[val_idx], pred, *(probs or (None, None)), pos_label, tune_threshold)
        trial.report(early, step=1)
        if prunable and trial.should_prune():
            raise optuna.TrialPruned()
    oof_pred, oof_proba, truth = [], [], []
    classes = list(np.unique(y)) if CLASSIFICATION else None  # as the fitted models order them
    for train_idx, val_idx in splits:
        pred, probs = fit_and_predict(key, params, X.iloc[train_idx], y.iloc[train_idx], X.iloc[val_idx], pos_label,
                                      deadline)
        truth.append(y.iloc[val_idx])
        oof_pred.append(pred)
        if probs is not None and probs[0] is not None:
            oof_proba.append(on_classes(probs[0], probs[1], classes))
    truth = pd.concat(truth)
    pred = np.concatenate(oof_pred)
    proba = np.concatenate(oof_proba) if len(oof_proba) == len(splits) else None
    score, threshold = score_predictions(truth, pred, proba, classes, pos_label, tune_threshold)
    kept = (proba if CLASSIFICATION else pred.astype(float))
    return score, threshold, kept, classes


def tunes_threshold(pos_label) -> bool:
    """F1 on two classes is scored at the probability threshold tuned on the out-of-fold predictions."""
    return CLASSIFICATION and CONFIG["metric"] == "f1" and pos_label is not None


OOF: dict[int, np.ndarray] = {}  # trial number -> its out-of-fold predictions, for ensemble selection
ROUNDS = ("n_estimators", "iterations", "max_iter")  # boosting rounds or trees, by library


def trial_work(params: dict) -> float:
    """A trial's cost in relative units: its rounds (trees), and for CatBoost's symmetric trees, their depth."""
    rounds = next((params[name] for name in ROUNDS if params.get(name)), 1)
    return float(rounds) * 2.0 ** (params.get("depth", 6) - 6)


def expected_seconds(study, key: str, params: dict) -> float | None:
    """How long a trial of this model should take: the finished trials of the same model, scaled by their work;
    None before one has finished."""
    rates = [t.duration.total_seconds() / trial_work(t.user_attrs["params"])
             for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
             if t.user_attrs.get("model_key") == key and t.duration is not None]
    return float(np.median(rates)) * trial_work(params) if rates else None


def skipped(trial) -> bool:
    return bool(trial.user_attrs.get("skipped"))


def run_search(X_train, y_train, pos_label):
    candidates = CONFIG["candidates"]
    direction = CONFIG["direction"]
    tune_threshold = tunes_threshold(pos_label)
    splits = cv_splits(X_train, y_train) if TASK != "tabular_clustering" else None
    sample = X_train.sample(min(len(X_train), 3000), random_state=SEED) if TASK == "tabular_clustering" else None
    if TASK == "tabular_clustering":
        numeric = FrameEncoder(numeric=CONFIG["numeric"], categorical=[]).fit_transform(X_train)
        REPRESENTATION.update(choose_representation(numeric))
        print(f"representation: {REPRESENTATION['reason']}", flush=True)

    def objective(trial: optuna.Trial) -> float:
        candidate, params = suggest_candidate(trial, candidates)
        key = candidate["model"]
        params.update(fixed_params(key, params))
        trial.set_user_attr("model_key", key)
        trial.set_user_attr("params", params)
        left = CONFIG["hpo_budget_s"] - (time.perf_counter() - started)
        expected = expected_seconds(trial.study, key, params) if trial.number >= n_known else None
        if expected is not None and expected > left:
            # Optuna's timeout only stops new trials: one that cannot finish in time would overrun the budget
            # (a 1900-round CatBoost trial started at 37 s of 42 ran to 56 s), so another point is sampled instead
            trial.set_user_attr("skipped", f"expected {expected:.0f} s, {left:.0f} s left")
            raise optuna.TrialPruned()
        if TASK == "tabular_clustering":
            pipe = make_pipeline(key, params)
            labels = pipe.fit_predict(sample) if hasattr(pipe, "fit_predict") else pipe.fit(sample).predict(sample)
            score = clustering_metrics(pipe[:-1].transform(sample), labels)["silhouette"]
            threshold = None
        else:
            # a boosting or forest trial stops at its share of the budget, and is then the model of the rounds it built; until
            # one has finished, a trial may take twice the whole budget, so that a machine slower than expected still
            # delivers a real model, and a stalled one still ends in time
            finished = trial.study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
            limit = trial_time_limit(CONFIG["hpo_budget_s"], started)
            deadline = TrainingDeadline(limit if finished else max(limit, 2 * CONFIG.get("budget_s", 60) + 10))
            score, threshold, kept, classes = supervised_score(trial, key, params, X_train, y_train, splits, pos_label,
                                                               tune_threshold, prunable=trial.number >= n_known,
                                                               deadline=deadline)
            if deadline.adjusted:  # a forest grew each tree on a sample of the rows to keep within its time
                params.update(deadline.adjusted)
                trial.set_user_attr("params", params)
            if deadline.rounds is not None:
                params[ROUNDS_PARAM[key]] = deadline.rounds
                trial.set_user_attr("params", params)
                trial.set_user_attr("stopped", f"stopped at {deadline.rounds} rounds after {deadline.seconds:.0f} s")
            if kept is not None:
                OOF[trial.number] = kept
                trial.set_user_attr("classes", classes)
        trial.set_user_attr("threshold", threshold)
        return score

    sampler = optuna.samplers.TPESampler(seed=SEED, n_startup_trials=min(8, max(2, CONFIG["max_trials"] // 4)))
    pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3) \
        if splits is not None and holdout_split(splits) else optuna.pruners.NopPruner()
    study = optuna.create_study(direction=direction, sampler=sampler, pruner=pruner)
    log_target = TASK == "tabular_regression" and prefers_log_target(y_train, CONFIG["metric"])
    # every candidate's defaults are tried first, best-known first (on the log scale when the target calls for it)
    # the warm starts on both scales unless the metric itself is on the log scale (RMSLE, MAPE): the blend then has
    # a model of the target and one of its logs to mix
    n_known = enqueue_defaults(study, candidates, overrides={"log_target": True} if log_target else None,
                               warm_starts_both_ways=CONFIG["metric"] not in {"rmsle", "mape"}, n_rows=len(X_train))
    started = time.perf_counter()
    study.optimize(objective, n_trials=CONFIG["max_trials"], timeout=CONFIG["hpo_budget_s"],
                   callbacks=[progress_printer(started)],
                   catch=(Exception,))  # one library refusing one candidate (CatBoostError, ...) fails its trial only
    return study, time.perf_counter() - started, splits


def refit_seconds(trial, splits) -> float:
    """What refitting the trial's model on all training rows should take, from how long the trial took: one holdout
    fit on 80 % of the rows, or k cross-validation fits on (k-1)/k of them."""
    if trial.duration is None:
        return 0.0
    seconds = trial.duration.total_seconds()
    return seconds * 1.25 if holdout_split(splits) else seconds / max(len(splits) - 1, 1)


def select_blend(study, y_train, splits, pos_label):
    """The ensemble of the best trials when it validates better than the best one alone (supervised tasks)."""
    if TASK == "tabular_clustering" or not OOF:
        return None
    truth = pd.concat([y_train.iloc[val_idx] for _, val_idx in splits])
    tune_threshold = tunes_threshold(pos_label)
    best = study.best_trial
    if best.number not in OOF:  # the best model gives no probabilities (a linear SVM): nothing to average with
        return None
    classes = best.user_attrs.get("classes")
    compatible = {n: p for n, p in OOF.items() if p.shape == OOF[best.number].shape}

    def score(prediction):
        if CLASSIFICATION:
            return score_predictions(truth, None, prediction, classes, pos_label, tune_threshold)[0]
        return score_predictions(truth, prediction, None, None, pos_label, False)[0]

    blend = ensembling.select(study.trials, compatible, score, CONFIG["direction"] == "maximize",
                              cost={t.number: refit_seconds(t, splits) for t in study.trials if t.number in compatible},
                              max_cost=CONFIG.get("refit_budget_s"))
    if blend is None:
        return None
    threshold = None
    if tune_threshold:
        blended = sum(w * compatible[n] for n, w in zip(blend.members, blend.weights))
        threshold = score_predictions(truth, None, blended, classes, pos_label, True)[1]
    return blend, threshold


def fixed_params(key: str, params: dict) -> dict:
    """Parameters fixed by the requirements rather than searched (the number of clusters when it is known)."""
    k = CONFIG.get("n_clusters")
    if TASK != "tabular_clustering" or not k:
        return {}
    return k_params(key, k)


# ---------------------------------------------------------------- final model, profile, outputs
def fit_final(key: str, params: dict, threshold, pos_label, X_train, y_train, members=None, expected_s: float = 0.0):
    """The chosen model refitted on all training rows; `members` ((key, params, weight), ...) makes it a weighted
    blend (scikit-learn's Voting estimators, soft voting for classes)."""
    if members:
        from sklearn.ensemble import VotingClassifier, VotingRegressor
        named = [(f"{k}_{i}", make_pipeline(k, p)) for i, (k, p, _) in enumerate(members)]
        weights = [w for _, _, w in members]
        pipe = VotingClassifier(named, voting="soft", weights=weights) if CLASSIFICATION \
            else VotingRegressor(named, weights=weights)
    else:
        pipe = make_pipeline(key, params)
    started = time.perf_counter()
    # the refit of one boosting model stops where the run's budget ends: the model then has the rounds it built, and
    # results.json says so; never before 5 s nor before three times what its trial says it takes (`expected_s`, at most
    # the budget), so that a busy machine slows the refit down without cutting it to a few rounds
    left = CONFIG.get("budget_s", float("inf")) - (started - SCRIPT_STARTED)
    deadline = TrainingDeadline(max(5.0, min(3 * expected_s, CONFIG.get("budget_s", 60)), left)) \
        if not members and threshold is None and TASK != "tabular_clustering" else None
    if threshold is not None:
        from sklearn.model_selection import FixedThresholdClassifier
        model = FixedThresholdClassifier(pipe, threshold=threshold, pos_label=pos_label, response_method="predict_proba")
        model.fit(X_train, y_train)
    elif TASK == "tabular_clustering":
        model = pipe.fit(X_train)
    else:
        model = fit_within(pipe, X_train, y_train, key, deadline)
    if deadline is not None and deadline.rounds is not None:
        SPLIT_NOTES["refit_stopped"] = (f"the refit on all training rows stopped at {deadline.rounds} of "
                                        f"{params.get(ROUNDS_PARAM[key])} rounds, where the budget ended")
    return model, time.perf_counter() - started


def blend_name(ensemble: dict) -> str:
    from collections import Counter
    families = Counter(m["model"] for m in ensemble["members"])
    return "blend: " + " + ".join(k if n == 1 else f"{k} x{n}" for k, n in families.items())


def blend_refusal(model) -> str | None:
    """Why a blend is not delivered, or None (`model` None: what can be said before fitting it). A run that names a
    latency limit is serving-sensitive: a blend answers several times slower than its members (a 3-member churn
    blend took 5.6 ms against 2 ms, and under 50 clients in CI its service fell to 6 requests/s), so such a run
    keeps the single model. Size and parameter limits are checked on the blend itself."""
    limits = CONFIG.get("limits") or {}
    if "latency_ms" in limits:
        return "the run sets a latency limit, and the single model answers faster"
    if model is None:
        return None
    if "model_size_mb" in limits and len(pickle.dumps(model)) / 2**20 > limits["model_size_mb"]:
        return "it breaks the size limit"
    if "n_parameters" in limits and (count_parameters(model) or 0) > limits["n_parameters"]:
        return "it breaks the parameter limit"
    return None


def main() -> int:
    started = time.perf_counter()
    frame = load_data()
    X_train, X_test, y_train, y_test = split_data(frame)
    # the exact split, so that a benchmark baseline can be scored on the same rows
    Path("split.json").write_text(json.dumps({"features": list(X_train.columns), "target": CONFIG.get("target"),
                                              "train_index": X_train.index.tolist(), "test_index": X_test.index.tolist()}))
    pos_label = positive_label(y_train) if CLASSIFICATION else None

    study, hpo_seconds, splits = run_search(X_train, y_train, pos_label)
    completed = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]  # pruned ones have values too
    if not completed:
        print("no hyperparameter trial finished", file=sys.stderr)
        return 2
    best = study.best_trial
    key, params, threshold = best.user_attrs["model_key"], best.user_attrs["params"], best.user_attrs["threshold"]
    model, ensemble = None, None
    try:
        chosen = select_blend(study, y_train, splits, pos_label)
        if chosen is not None:
            blend, blend_threshold = chosen
            trials = {t.number: t for t in study.trials}
            members = [(trials[n].user_attrs["model_key"], trials[n].user_attrs["params"], w)
                       for n, w in zip(blend.members, blend.weights)]
            refused = blend_refusal(None)  # a latency limit refuses it before any fitting
            if refused is None:
                blended, blend_seconds = fit_final(key, params, blend_threshold, pos_label, X_train, y_train,
                                                   members=members)
                refused = blend_refusal(blended)
            ensemble = {"members": [{"trial": n + 1, "model": k, "weight": round(w, 4)}
                                    for n, (k, _, w) in zip(blend.members, members)],
                        "validation": blend.score, "best_single_validation": blend.best_single,
                        "refused": refused, "kept": refused is None}
            if ensemble["kept"]:
                model, train_seconds, threshold = blended, blend_seconds, blend_threshold
    except Exception as exc:  # noqa: BLE001 - a blend is an extra; the best single model stands without it
        print(f"blending skipped: {type(exc).__name__}: {exc}", flush=True)
        ensemble = None
    if model is None:
        model, train_seconds = fit_final(key, params, threshold, pos_label, X_train, y_train,
                                         expected_s=refit_seconds(best, splits) if splits else 0.0)

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
        "cv_score": float(ensemble["validation"] if ensemble and ensemble["kept"] else best.value),
        "best_model": blend_name(ensemble) if ensemble and ensemble["kept"] else key, "lead_model": key, "ensemble": ensemble,
        "representation": REPRESENTATION if TASK == "tabular_clustering" else None, "best_params": params, "threshold": threshold,
        "positive_label": None if pos_label is None else str(pos_label),
        "n_trials": len(completed),
        "n_pruned": sum(t.state == optuna.trial.TrialState.PRUNED and not skipped(t) for t in study.trials),
        "n_skipped": sum(skipped(t) for t in study.trials),
        "n_stopped": sum(bool(t.user_attrs.get("stopped")) for t in study.trials),
        "trials_per_s": round(sum(not skipped(t) for t in study.trials) / max(hpo_seconds, 1e-9), 3), "hpo_seconds": round(hpo_seconds, 2), "training_time_s": round(hpo_seconds + train_seconds, 3),
        "latency_ms": round(latency_ms, 4), "latency_p95_ms": round(latency_p95_ms, 4),
        "model_size_mb": round(len(pickle.dumps(model)) / 2**20, 4), "n_parameters": count_parameters(model),
        "n_train": int(len(X_train)), "n_test": int(len(X_test)), "total_seconds": round(time.perf_counter() - started, 2),
        **SPLIT_NOTES,
    }
    write_results(results, completed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
