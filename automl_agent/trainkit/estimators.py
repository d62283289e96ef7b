"""Knowledge-base model keys -> scikit-learn-compatible estimators, for the generated training scripts."""

from __future__ import annotations

import time

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


ROUNDS_PARAM = {"lightgbm": "n_estimators", "catboost": "iterations"}  # models a deadline can stop between rounds


class TrainingDeadline:
    """Stops a boosting model's training once its time is up, keeping the rounds already built: a trial or a refit
    takes the seconds it was given whatever its number of rounds and the table's size. `rounds`: the fewest rounds
    a fit under this deadline was stopped at (None: none was stopped)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.until = time.monotonic() + seconds
        self.rounds: int | None = None

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
    model that cannot be stopped between rounds)."""
    if deadline is None or key not in ROUNDS_PARAM:
        return {}
    return {f"{step}__callbacks": [deadline]}
