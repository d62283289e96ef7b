"""Foundation benchmark: Telco churn and diamonds at the default budget.

Reports wall time from command to bento per stage, the share spent outside the training script, and the
held-out test metric next to a plain LightGBM with default parameters on the same split.
Usage: python benchmarks/foundation.py [--budget 60] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.metrics import f1_score, mean_squared_error
from sklearn.model_selection import train_test_split

from automl_agent.agents.contracts import attempt_dir

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "automl_agent" / "datasets"
CASES = [
    {"name": "telco-churn", "file": "churn.csv", "target": "churn", "metric": "f1",
     "instruction": "Build a model to predict customer churn. F1 should be at least 0.55 and one prediction must take under 10 ms."},
    {"name": "diamonds", "file": "diamonds.csv", "target": "price", "metric": "rmse",
     "instruction": "Build a model to predict the price of a diamond from its attributes; RMSE should be below 600."},
]


def default_lightgbm(case: dict, features: list[str]) -> float:
    """Plain LGBM defaults on the skeleton's split (test 20 %, seed 0, stratified for classification)."""
    frame = pd.read_csv(DATASETS / case["file"])
    X = frame[features].copy()
    for col in X.columns:
        if not pd.api.types.is_numeric_dtype(X[col]):
            X[col] = X[col].astype("category")
    y = frame[case["target"]]
    classification = case["metric"] == "f1"
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0,
                                                        stratify=y if classification else None)
    if classification:
        model = lgb.LGBMClassifier(verbosity=-1).fit(X_train, y_train)
        positive = y_train.value_counts().index[-1]
        return float(f1_score(y_test, model.predict(X_test), pos_label=positive))
    model = lgb.LGBMRegressor(verbosity=-1).fit(X_train, y_train)
    return float(np.sqrt(mean_squared_error(y_test, model.predict(X_test))))


def run_case(case: dict, budget: float, workdir: Path) -> dict:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "automl_agent.cli.app", "--workdir", str(workdir), "run", case["instruction"],
                           "--data", str(DATASETS / case["file"]), "--budget", str(budget), "--json", "--quiet"],
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    record = json.loads(proc.stdout)
    results_path = attempt_dir(record["script_path"]) / "results.json"
    results = json.loads(results_path.read_text())
    config_features = [c["name"] for c in json.loads((Path(record["demo_path"]).with_name("demo_config.json")).read_text())["schema"]["columns"]]
    baseline = default_lightgbm(case, config_features)
    train = record["timings"].get("train", 0.0)
    return {
        "dataset": case["name"], "status": record["status"], "metric": case["metric"],
        "automl_agent": record["metrics"][case["metric"]], "default_lightgbm": baseline,
        "better_or_equal": (record["metrics"][case["metric"]] >= baseline) if case["metric"] == "f1"
        else (record["metrics"][case["metric"]] <= baseline),
        "best_model": record["best_model"], "n_trials": results["n_trials"], "latency_ms": results["latency_ms"],
        "wall_s": round(wall, 1), "flow_s": record["timings"]["total"], "train_s": train,
        "outside_training_s": round(wall - train, 1), "outside_training_share": round((wall - train) / wall, 3),
        "startup_s": round(wall - record["timings"]["total"], 1), "stages": record["timings"],
        "success_score": record["success_score"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp) / "workspace"
        # One workspace, as a user has: the first command starts its Prefect server (cold), later ones reuse it.
        for case, start in [(CASES[0], "cold"), (CASES[1], "warm"), (CASES[0], "warm")]:
            print(f"running {case['name']} ({start} workspace) ...", file=sys.stderr, flush=True)
            rows.append({**run_case(case, args.budget, workdir), "workspace": start})
            print(json.dumps(rows[-1], indent=1), file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "automl_agent.cli.app", "--workdir", str(workdir), "server", "stop"],
                       capture_output=True, text=True)
    (out / "foundation.json").write_text(json.dumps(rows, indent=2))
    lines = ["| dataset | workspace | metric | automl-agent | default LightGBM | wall s | startup s | flow s | train s | outside training s (share) | trials | latency ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['workspace']} | {r['metric']} | {r['automl_agent']:.4f} | {r['default_lightgbm']:.4f} | {r['wall_s']} | "
                     f"{r['startup_s']} | {r['flow_s']:.1f} | {r['train_s']:.1f} | {r['outside_training_s']} ({r['outside_training_share']:.0%}) | "
                     f"{r['n_trials']} | {r['latency_ms']} |")
    (out / "foundation.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
