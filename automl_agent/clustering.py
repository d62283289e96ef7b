"""Internal criteria for choosing a clustering without the labels: the silhouette in the model's own space and the
stability across resamples (two models fitted on random halves should label every row alike). The tabular training
script imports this; benchmarks/clustering_criteria.py measures how well each criterion tracks held labels."""

from __future__ import annotations

import numpy as np
from sklearn import metrics as skm

from .estimators import make_estimator

K_PARAMETER = {"gaussian_mixture": "n_components"}


def with_k(model: str, params: dict, k: int | None) -> dict:
    params = {key: value for key, value in params.items() if key not in {"k", "n_clusters", "n_components"}}
    if k is not None:
        params[K_PARAMETER.get(model, "n_clusters")] = k
    return params


def _k(params: dict) -> int | None:
    return params.get("k", params.get("n_clusters", params.get("n_components")))


def fit_labels(model: str, params: dict, space: np.ndarray, seed: int = 0) -> np.ndarray:
    estimator = make_estimator(model, with_k(model, params, _k(params)), task="tabular_clustering", seed=seed)
    return estimator.fit(space).predict(space)


def stability(model: str, params: dict, space: np.ndarray, seed: int = 0, repeats: int = 3) -> float:
    """Mean adjusted Rand index between the labellings of all rows by models fitted on two disjoint random halves;
    near 1 when the structure is in the data, lower when the model slices a continuum wherever its start falls."""
    rng = np.random.default_rng(seed)
    n = len(space)
    if n < 20:
        return 0.0
    scores = []
    for repeat in range(repeats):
        order = rng.permutation(n)
        halves = order[: n // 2], order[n // 2:]
        labellings = []
        for half in halves:
            estimator = make_estimator(model, with_k(model, params, _k(params)), task="tabular_clustering",
                                       seed=seed + repeat)
            labellings.append(estimator.fit(space[half]).predict(space))
        scores.append(skm.adjusted_rand_score(*labellings))
    return float(np.mean(scores))


def criterion(space: np.ndarray, labels: np.ndarray, stable: float) -> float:
    """What the search maximises: stability times the (non-negative) silhouette, so a clustering must be both
    reproducible and separated; one cluster scores 0."""
    if len(set(labels)) < 2:
        return 0.0
    return float(stable * max(skm.silhouette_score(space, labels), 0.0))


SIZE_FACTOR_SHARE = 0.8  # the first component's share of variance above which one factor is said to dominate


def choose_representation(numeric: np.ndarray) -> dict:
    """The representation of the numeric columns to cluster in, decided from the unlabelled training rows: when the
    columns are non-negative measurements whose first principal component on the log scale carries most of the
    variance with every column loading the same way (an overall size factor, as in body measurements), that component
    is removed on the log scale ('log_drop1'), so that clusters follow shape rather than size; otherwise the columns
    are standardised ('scaled'). Comparing internal scores across representations does not work (each space has its
    own silhouette scale; see benchmarks/results/clustering_criteria.md), hence a rule here and the criteria within."""
    numeric = np.asarray(numeric, dtype=float)
    if numeric.ndim != 2 or numeric.shape[1] < 3 or len(numeric) < 10:
        return {"kind": "scaled", "reason": "fewer than three numeric columns: standardised"}
    if numeric.min() < 0:
        return {"kind": "scaled", "reason": "some measurements are negative: standardised"}
    logged = np.log1p(numeric)
    std = logged.std(axis=0)
    scaled = (logged - logged.mean(axis=0)) / np.where(std > 0, std, 1.0)
    _, singular, components = np.linalg.svd(scaled, full_matrices=False)
    share = float(singular[0] ** 2 / np.sum(singular ** 2))
    same_sign = bool(np.all(components[0] > 0) or np.all(components[0] < 0))
    detail = {"first_component_share": round(share, 4), "same_sign_loadings": same_sign}
    if share >= SIZE_FACTOR_SHARE and same_sign:
        return {"kind": "log_drop1", **detail,
                "reason": f"one factor carries {share:.0%} of the variance and every column grows with it (overall size): "
                          "clustered on the log scale with that factor removed"}
    return {"kind": "scaled", **detail, "reason": "no single factor dominates the measurements: standardised"}
