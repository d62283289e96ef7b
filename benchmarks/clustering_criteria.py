"""Which internal criterion picks clusterings that agree with the held labels? (issue 15)

For every clustering dataset of the tabular suite (penguins, wine, crabs) and iris, every representation
(runtime.CLUSTER_REPRESENTATIONS) x model (k-means, Gaussian mixture, Ward agglomerative) x k (2..8) is fitted on all
rows without the labels. Each gets three internal scores: the silhouette in its own space, the stability across
resamples (mean adjusted Rand index between models fitted on two random halves, labelling every row), and their
product. The held labels are used only afterwards: the Spearman correlation of each criterion with the adjusted Rand
index against them, and the Rand index of the clustering each criterion would choose, with k known and unknown.

    python benchmarks/clustering_criteria.py      # writes benchmarks/results/clustering_criteria.{json,md}
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn import metrics as skm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from automl_agent.trainkit.runtime import CLUSTER_REPRESENTATIONS, ClusterSpace, FrameEncoder  # noqa: E402
from automl_agent.trainkit.clustering import k_params  # noqa: E402
from automl_agent.trainkit.estimators import make_estimator  # noqa: E402

DATASETS = {"penguins": ("automl_agent/datasets/penguins.csv", "species"), "crabs": ("automl_agent/datasets/crabs.csv", "group"),
            "wine": ("sklearn:wine", "cultivar"), "iris": ("sklearn:iris", "species")}
MODELS = ("kmeans", "gaussian_mixture", "birch")  # birch ends in Ward agglomerative clustering


def fit_labels(model: str, k: int, space: np.ndarray, seed: int = 0) -> np.ndarray:
    return make_estimator(model, k_params(model, k), task="tabular_clustering", seed=seed).fit(space).predict(space)


def stability(model: str, k: int, space: np.ndarray, seed: int = 0, repeats: int = 3) -> float:
    """Mean adjusted Rand index between the labellings of all rows by models fitted on two disjoint random halves;
    near 1 when the structure is in the data, lower when the model slices a continuum wherever its start falls."""
    rng = np.random.default_rng(seed)
    scores = []
    for repeat in range(repeats):
        order = rng.permutation(len(space))
        labellings = [make_estimator(model, k_params(model, k), task="tabular_clustering", seed=seed + repeat)
                      .fit(space[half]).predict(space) for half in (order[: len(space) // 2], order[len(space) // 2:])]
        scores.append(skm.adjusted_rand_score(*labellings))
    return float(np.mean(scores))


def load(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    path, label = DATASETS[name]
    if path.startswith("sklearn:"):
        import sklearn.datasets
        bunch = getattr(sklearn.datasets, f"load_{path.split(':')[1]}")(as_frame=True)
        return bunch.data, bunch.target.astype(str).to_numpy()
    frame = pd.read_csv(ROOT / path).dropna()
    return frame.drop(columns=[label]), frame[label].astype(str).to_numpy()


def study(name: str) -> dict:
    X, truth = load(name)
    numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c]) and c != "year"]
    categorical = [c for c in X.columns if c not in numeric and c != "year"]
    encoded = FrameEncoder(numeric=numeric, categorical=categorical, scale=False).fit_transform(X)
    k_true = len(set(truth))
    rows = []
    for kind in CLUSTER_REPRESENTATIONS:
        space = ClusterSpace(n_numeric=len(numeric), kind=kind).fit_transform(encoded)
        for model in MODELS:
            for k in range(2, 9):
                labels = fit_labels(model, k, space, seed=0)
                silhouette = float(skm.silhouette_score(space, labels)) if len(set(labels)) > 1 else -1.0
                stable = stability(model, k, space, seed=0)
                rows.append({"representation": kind, "model": model, "k": k, "silhouette": silhouette,
                             "stability": stable, "product": max(silhouette, 0) * stable,
                             "ari": float(skm.adjusted_rand_score(truth, labels)),
                             "rand_index": float(skm.rand_score(truth, labels))})
    table = pd.DataFrame(rows)
    out = {"dataset": name, "rows": len(X), "k_true": k_true, "criteria": {}}
    for criterion in ("silhouette", "stability", "product"):
        rho = spearmanr(table[criterion], table["ari"]).statistic
        known = table[table.k == k_true]
        pick_known = known.loc[known[criterion].idxmax()]
        pick_free = table.loc[table[criterion].idxmax()]
        out["criteria"][criterion] = {
            "spearman_with_ari": round(float(rho), 3),
            "k_known": {"choice": f"{pick_known.representation}/{pick_known.model}", "rand_index": round(pick_known.rand_index, 4)},
            "k_free": {"choice": f"{pick_free.representation}/{pick_free.model}/k={pick_free.k}",
                       "rand_index": round(pick_free.rand_index, 4)}}
    base = table[(table.representation == "scaled") & (table.model == "kmeans") & (table.k == k_true)].iloc[0]
    out["kmeans_scaled_k_true_rand_index"] = round(float(base.rand_index), 4)
    out["best_possible_k_known_rand_index"] = round(float(table[table.k == k_true].rand_index.max()), 4)
    return out


def main() -> None:
    started = time.perf_counter()
    results = [study(name) for name in DATASETS]
    results_dir = ROOT / "benchmarks" / "results"
    (results_dir / "clustering_criteria.json").write_text(json.dumps(results, indent=2))
    lines = ["# Internal clustering criteria against the held labels", "",
             "Every representation x model x k (2..8) fitted without the labels; Spearman is over all of them. "
             "'k known' picks among k = number of label classes; 'k free' among all k. Rand index of the pick.", "",
             "| dataset | criterion | Spearman with ARI | pick (k known) | RI | pick (k free) | RI | k-means on scaled columns, true k |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        for criterion, c in r["criteria"].items():
            lines.append(f"| {r['dataset']} | {criterion} | {c['spearman_with_ari']:.3f} | {c['k_known']['choice']} | "
                         f"{c['k_known']['rand_index']:.4f} | {c['k_free']['choice']} | {c['k_free']['rand_index']:.4f} | "
                         f"{r['kmeans_scaled_k_true_rand_index']:.4f} |")
    lines += ["", f"{time.perf_counter() - started:.0f} s on this machine."]
    (results_dir / "clustering_criteria.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
