"""Four runs at once on the team stack (issue 27): nothing lost, and what the database logs meanwhile.

    python benchmarks/concurrent_runs.py --db postgres --out benchmarks/results/concurrent_runs_postgres
    python benchmarks/concurrent_runs.py --db sqlite   --out benchmarks/results/concurrent_runs_sqlite

In a temporary AUTOML_AGENT_HOME: `stack up --db DB` (timed), `deploy`, then N deployment runs of automl-agent/run
created through the API at the same moment, each registering under its own model name. Counts: runs COMPLETED,
model versions registered, API calls answered 5xx, and "database is locked" / scheduler errors in every stack log.
Writes OUT.json and OUT.md."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "automl_agent.cli.app"]
CHURN = ROOT / "automl_agent" / "datasets" / "churn.csv"
TERMINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", default="postgres")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--budget", type=float, default=8)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="concurrent-runs-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_", "AUTOML_AGENT_"))}
    env["AUTOML_AGENT_HOME"] = str(home)
    errors_5xx = 0
    started = time.perf_counter()
    up = subprocess.run([*CLI, "stack", "up", "--db", args.db], capture_output=True, text=True, timeout=600, env=env)
    stack_up_s = time.perf_counter() - started
    if up.returncode != 0:
        print(up.stderr[-2000:])
        return 1
    exports = dict(line.removeprefix("export ").split("=", 1) for line in up.stdout.splitlines()
                   if line.startswith("export "))
    env.update(exports)
    api = exports["PREFECT_API_URL"]
    try:
        assert subprocess.run([*CLI, "deploy"], capture_output=True, text=True, timeout=300, env=env).returncode == 0
        deployment = httpx.get(f"{api}/deployments/name/automl-agent/run", timeout=30).json()

        def create(i: int) -> str:
            nonlocal errors_5xx
            parameters = {"instruction": "Which customers will churn? F1 at least 0.4.", "data": str(CHURN),
                          "budget": args.budget, "plans": 1, "model_name": f"concurrent-{i}"}
            for _ in range(10):
                reply = httpx.post(f"{api}/deployments/{deployment['id']}/create_flow_run",
                                   json={"parameters": parameters}, timeout=60)
                if reply.status_code < 500:
                    reply.raise_for_status()
                    return reply.json()["id"]
                errors_5xx += 1
                time.sleep(1)
            raise RuntimeError("the API kept answering 5xx")

        triggered = time.perf_counter()
        with ThreadPoolExecutor(args.runs) as pool:
            ids = list(pool.map(create, range(args.runs)))
        states: dict[str, dict] = {}
        while len(states) < len(ids) and time.perf_counter() - triggered < 1800:
            for run_id in ids:
                if run_id in states:
                    continue
                reply = httpx.get(f"{api}/flow_runs/{run_id}", timeout=30)
                if reply.status_code >= 500:
                    errors_5xx += 1
                elif reply.json()["state_type"] in TERMINAL:
                    states[run_id] = reply.json() | {"seen_done_s": round(time.perf_counter() - triggered, 1)}
            time.sleep(1)
        all_done_s = time.perf_counter() - triggered
        from mlflow.tracking import MlflowClient

        client = MlflowClient(exports["MLFLOW_TRACKING_URI"])
        registered = sum(bool(client.search_model_versions(f"name='concurrent-{i}'")) for i in range(args.runs))
        info = json.loads((home / "stack" / "stack.json").read_text())
        logs = {c["name"]: Path(c["log"]).read_text(errors="replace") for c in info["components"]}
    finally:
        subprocess.run([*CLI, "stack", "down"], capture_output=True, text=True, timeout=300, env=env)
    summary = {
        "db": args.db, "runs": args.runs, "budget_s": args.budget, "stack_up_s": round(stack_up_s, 1),
        "completed": sum(s["state_type"] == "COMPLETED" for s in states.values()), "registered": registered,
        "all_done_s": round(all_done_s, 1), "per_run_s": sorted(s["seen_done_s"] for s in states.values()),
        "api_5xx": errors_5xx,
        "database_is_locked": {name: log.count("database is locked") for name, log in logs.items()},
        "scheduler_errors": {name: log.count("Can't evaluate bulk DML") for name, log in logs.items()},
        "machine": f"{os.cpu_count()} cores",
    }
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(summary, indent=2))
    locked = sum(summary["database_is_locked"].values())
    out.with_suffix(".md").write_text(
        f"# {args.runs} runs at once on the stack, Prefect on {args.db}\n\n"
        f"| stack up | completed | registered | all done after | API 5xx | 'database is locked' in logs | scheduler errors |\n"
        f"|---|---|---|---|---|---|---|\n"
        f"| {summary['stack_up_s']} s | {summary['completed']}/{args.runs} | {registered}/{args.runs} | "
        f"{summary['all_done_s']} s (each: {summary['per_run_s']}) | {errors_5xx} | {locked} | "
        f"{sum(summary['scheduler_errors'].values())} |\n\nBudget {args.budget:g} s per run, {summary['machine']}; "
        f"`python benchmarks/concurrent_runs.py --db {args.db}`.\n")
    print(json.dumps(summary, indent=2))
    return 0 if summary["completed"] == args.runs and registered == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
