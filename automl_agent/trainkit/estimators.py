"""Knowledge-base model keys -> scikit-learn-compatible estimators, for the generated training scripts."""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

CLASSIFICATION_TASKS = {"tabular_classification", "text_classification"}
# models whose inputs the preprocessor standardises (distance- or penalty-based)
SCALED_MODELS = {"logistic_regression", "ridge", "kmeans", "gaussian_mixture", "birch"}


def prefers_log_target(y, metric: str) -> bool:
    """Whether a regression target is worth trying on the log1p scale: the metric is relative (RMSLE, MAPE), or the
    target is positive and right-skewed (skewness above 1, as prices and counts are). The search still tries the
    raw scale too and keeps whichever validates better."""
    values = np.asarray(y, dtype=float)
    values = values[np.isfinite(values)]
    if len(values) < 10 or values.min() < 0:
        return False
    if metric in {"rmsle", "mape"}:
        return True
    spread = values.std()
    if spread == 0:
        return False
    skewness = float(np.mean(((values - values.mean()) / spread) ** 3))
    return skewness > 1.0


def make_estimator(key: str, params: dict, *, task: str, seed: int = 0, n_jobs: int = 1):
    """The unfitted estimator for a knowledge-base model key with these hyperparameters. For regression,
    `log_target=True` fits on log1p of the target and predicts back on its scale."""
    params = dict(params)
    classification = task in CLASSIFICATION_TASKS
    if task == "tabular_regression":
        log_target = params.pop("log_target", False)
    if key == "lightgbm":
        import lightgbm as lgb
        cls = lgb.LGBMClassifier if classification else lgb.LGBMRegressor
        if params.get("subsample", 1.0) < 1.0:
            params["subsample_freq"] = 1
        est = cls(random_state=seed, n_jobs=n_jobs, verbosity=-1, **params)
    elif key == "catboost":
        from catboost import CatBoostClassifier, CatBoostRegressor
        cls = CatBoostClassifier if classification else CatBoostRegressor
        if params.pop("class_weight", None) == "balanced":
            params["auto_class_weights"] = "Balanced"
        # allow_writing_files=False: no catboost_info/ folder of training logs in the working directory
        est = cls(random_seed=seed, thread_count=n_jobs, verbose=0, allow_writing_files=False, **params)
    elif key == "hist_gradient_boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
        cls = HistGradientBoostingClassifier if classification else HistGradientBoostingRegressor
        est = cls(random_state=seed, **params)
    elif key in {"random_forest", "extra_trees"}:
        from sklearn import ensemble
        name = ("RandomForest" if key == "random_forest" else "ExtraTrees") + ("Classifier" if classification else "Regressor")
        if not classification:
            params.pop("class_weight", None)
        est = getattr(ensemble, name)(random_state=seed, n_jobs=n_jobs, **params)
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
        est = KMeans(random_state=seed, n_init=10, **params)
    elif key == "gaussian_mixture":
        from sklearn.mixture import GaussianMixture
        est = GaussianMixture(random_state=seed, **params)
    elif key == "birch":
        from sklearn.cluster import Birch
        est = Birch(**params)
    else:
        raise ValueError(f"unknown model key {key!r}")
    if task == "tabular_regression" and log_target:
        from sklearn.compose import TransformedTargetRegressor
        est = TransformedTargetRegressor(regressor=est, func=np.log1p, inverse_func=np.expm1)
    return est


# models a deadline can stop between rounds: boosting libraries through a callback after each round, scikit-learn's
# ensembles by growing them in stages (warm_start) and checking the time between stages
CALLBACK_ROUNDS = {"lightgbm": "n_estimators", "catboost": "iterations"}
STAGED_ROUNDS = {"hist_gradient_boosting": "max_iter", "random_forest": "n_estimators", "extra_trees": "n_estimators"}
ROUNDS_PARAM = {**CALLBACK_ROUNDS, **STAGED_ROUNDS}


class TrainingDeadline:
    """Stops a boosting model's training once its time is up, keeping the rounds already built: a trial or a refit
    takes the seconds it was given whatever its number of rounds and the table's size. `rounds`: the fewest rounds
    a fit under this deadline was stopped at (None: none was stopped); `adjusted`: other hyperparameters a fit
    changed to keep within it (a forest's rows per tree), which a refit must use too."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.until = time.monotonic() + seconds
        self.rounds: int | None = None
        self.adjusted: dict = {}
        self.sized = False  # a forest's tree size was measured once under this deadline (the folds of one trial)

    def _stop(self, rounds: int) -> None:
        self.rounds = rounds if self.rounds is None else min(self.rounds, rounds)

    def __call__(self, env) -> None:  # LightGBM calls it after each round
        if time.monotonic() > self.until:
            import lightgbm as lgb
            self._stop(env.iteration + 1)
            raise lgb.callback.EarlyStopException(env.iteration, env.evaluation_result_list or [])

    def after_iteration(self, info) -> bool:  # CatBoost calls it after each round; False stops
        if time.monotonic() > self.until:
            self._stop(info.iteration)
            return False
        return True


def deadline_fit_params(key: str, step: str, deadline: TrainingDeadline | None) -> dict:
    """Fit parameters of a pipeline whose step `step` is the model `key` that stop it at `deadline` (empty for a
    model without a round callback)."""
    if deadline is None or key not in CALLBACK_ROUNDS:
        return {}
    return {f"{step}__callbacks": [deadline]}


def fit_within(pipe, X, y, key: str, deadline: TrainingDeadline | None):
    """Fits a pipeline whose last step is the model `key`, stopping the model's training at `deadline`: boosting
    libraries through their round callback, scikit-learn's ensembles (histogram boosting, forests) by growing them
    in stages. Either way the fitted pipeline is the model of the rounds built, and `deadline.rounds` says how many
    when it was stopped."""
    if deadline is None or key not in STAGED_ROUNDS:
        return pipe.fit(X, y, **deadline_fit_params(key, pipe.steps[-1][0], deadline))
    Xt = pipe[:-1].fit_transform(X, y) if len(pipe) > 1 else X
    _grow_in_stages(pipe[-1], Xt, y, STAGED_ROUNDS[key], deadline)
    return pipe


def _grow_in_stages(model, X, y, param: str, deadline: TrainingDeadline) -> None:
    """Grows a warm-startable ensemble (or one inside a TransformedTargetRegressor) to its full number of rounds,
    or until the deadline: a first stage of a few rounds measures their cost, each next stage adds what the time
    left allows (a stage overruns the deadline by at most the error of that estimate)."""
    from sklearn.compose import TransformedTargetRegressor

    wrapped = isinstance(model, TransformedTargetRegressor)
    template = model.regressor if wrapped else model
    total = int(template.get_params()[param])
    if param == "n_estimators":
        _bound_tree_size(template, X, y, deadline)
    built = min(total, _first_stage(template, param))
    template.set_params(**{param: built, "warm_start": True})
    started = time.monotonic()
    with warnings.catch_warnings():  # a forest's balanced class weights warn under warm_start; the data stays the same
        warnings.filterwarnings("ignore", message=".*warm_start.*", category=UserWarning)
        model.fit(X, y)
    grown = model.regressor_ if wrapped else model
    target = (model.transformer_.transform(np.asarray(y, dtype=float).reshape(-1, 1))[:, 0] if wrapped else y)
    first_stage_s = time.monotonic() - started
    per_round = first_stage_s / built
    while built < total and _rounds_built(grown, param) >= built:  # fewer: it stopped early by itself
        left = deadline.until - time.monotonic()
        # a stage also pays a fixed cost (histogram boosting bins the rows and replays its trees at each call): no
        # stage starts with less time left than half the first one took
        if left <= first_stage_s / 2:
            deadline._stop(built)
            break
        before = built
        built = min(total, built + max(1, int(0.8 * left / max(per_round, 1e-6))))
        started = time.monotonic()
        grown.set_params(**{param: built})
        grown.fit(X, target)
        per_round = (time.monotonic() - started) / (built - before)
    done = _rounds_built(grown, param)
    for estimator in {id(template): template, id(grown): grown}.values():
        estimator.set_params(**{param: done if deadline.rounds is not None else total, "warm_start": False})


PILOT_ROWS = 5000


def _bound_tree_size(forest, X, y, deadline: TrainingDeadline) -> None:
    """A forest cannot stop inside a tree, and one deep tree on millions of rows can take longer than a whole trial:
    a tree timed on a sample predicts a tree's time on all rows (about n log² n: n rows sorted at each of its log n
    levels), and where a stage of trees would take more than a fifth of the deadline, each tree is grown on a
    bootstrap sample of the rows that fits (`max_samples`)."""
    from sklearn.base import clone

    n = X.shape[0]
    if deadline.sized:  # a fold after the first: the same rows per tree as the first fold measured
        forest.set_params(**deadline.adjusted)
        return
    if n <= 4 * PILOT_ROWS or forest.get_params().get("max_samples") is not None:
        return
    deadline.sized = True
    rows = np.random.default_rng(0).choice(n, PILOT_ROWS, replace=False)
    pilot = clone(forest).set_params(n_estimators=1, n_jobs=1, warm_start=False)
    started = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pilot.fit(X.iloc[rows] if hasattr(X, "iloc") else X[rows], y.iloc[rows] if hasattr(y, "iloc") else
                  np.asarray(y)[rows])
    per_tree = (time.monotonic() - started) * (n / PILOT_ROWS) * (np.log(n) / np.log(PILOT_ROWS)) ** 2
    share = deadline.seconds / 5 / per_tree
    if share < 1:
        fraction = float(max(share, 2 * PILOT_ROWS / n))
        deadline.adjusted.update({"bootstrap": True, "max_samples": round(fraction, 4)})
        forest.set_params(**deadline.adjusted)


def _first_stage(estimator, param: str) -> int:
    """Rounds that measure a stage's cost: ten boosting iterations (each is quick), a tree per worker for a forest
    (a deep tree on a large table takes seconds)."""
    if param == "max_iter":
        return 10
    n_jobs = estimator.get_params().get("n_jobs") or 1
    return max(1, os.cpu_count() or 1) if n_jobs < 0 else n_jobs


def _rounds_built(estimator, param: str) -> int:
    return int(estimator.n_iter_) if param == "max_iter" else len(estimator.estimators_)
