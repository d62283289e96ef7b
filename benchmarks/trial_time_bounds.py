"""Does a trial end when its time is up, whatever the model? Each model family of the tabular search is fitted on
a large synthetic table with far more rounds than the time allows, under a deadline of a few seconds, as the
training script fits a trial (issue 30: a budget is a promise). Records the wall time against the deadline, the
rounds built, and the wall time of the same fit without a deadline, where it ends at all within `--cap`.

    python benchmarks/trial_time_bounds.py [--rows 300000] [--deadlines 5 15] [--out benchmarks/results/trial_time_bounds]

Run on a quiet machine; OpenMP threads wait passively, as they do in the sandbox.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before any OpenMP library loads, as the sandbox does

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from automl_agent.trainkit.estimators import ROUNDS_PARAM, TrainingDeadline, fit_within, make_estimator  # noqa: E402

MODELS = ["hist_gradient_boosting", "random_forest", "extra_trees", "lightgbm", "catboost"]


def table(rows: int) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(rows, 20)), columns=[f"x{i}" for i in range(20)])
    y = X.x0 * 3 + np.sin(X.x1) * X.x2 + X.x3 ** 2 + rng.normal(scale=0.5, size=rows)
    return X, y


def fit_once(key: str, X, y, seconds: float | None, n_jobs: int) -> dict:
    params = {ROUNDS_PARAM[key]: 100_000, **({"early_stopping": False} if key == "hist_gradient_boosting" else {})}
    pipe = Pipeline([("scale", StandardScaler()),
                     ("model", make_estimator(key, params, task="tabular_regression", n_jobs=n_jobs))])
    deadline = TrainingDeadline(seconds) if seconds is not None else None
    started = time.perf_counter()
    fit_within(pipe, X, y, key, deadline)
    wall = time.perf_counter() - started
    return {"model": key, "deadline_s": seconds, "wall_s": round(wall, 2),
            "wall_over_deadline": round(wall / seconds, 2) if seconds else None,
            "rounds_built": deadline.rounds if deadline else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--deadlines", type=float, nargs="+", default=[5.0, 15.0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/trial_time_bounds"))
    args = parser.parse_args()
    X, y = table(args.rows)
    rows = []
    for key in MODELS:
        for seconds in args.deadlines:
            row = fit_once(key, X, y, seconds, args.n_jobs)
            print(json.dumps(row), flush=True)
            rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"rows": args.rows, "n_jobs": args.n_jobs,
                                                         "results": rows}, indent=1))
    lines = [f"# Trial time bounds ({args.rows:,} rows x 20 numeric columns, regression, 100,000 rounds asked, "
             f"n_jobs={args.n_jobs})", "",
             "Each model fitted as the training script fits a trial, under a deadline far shorter than its rounds "
             "need (`benchmarks/trial_time_bounds.py`).", "",
             "| model | deadline (s) | wall (s) | wall / deadline | rounds built |", "|---|---|---|---|---|"]
    lines += [f"| {r['model']} | {r['deadline_s']:g} | {r['wall_s']} | {r['wall_over_deadline']} | {r['rounds_built']} |"
              for r in rows]
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
