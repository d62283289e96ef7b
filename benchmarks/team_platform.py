"""Numbers for the team platform (issue: runs from the Prefect UI, training on work pools, a shared MLflow).

    python benchmarks/team_platform.py [--workspaces 10] [--budget 10]

Measures, on this machine, in a temporary AUTOML_AGENT_HOME (nothing of the user's is touched):
- stack start-up: `automl-agent stack up` until every part is healthy;
- trigger-to-completed for the churn deployment (`automl-agent/run`), locally trained and on the `gpu` pool;
- what dispatching training to a pool adds: the train stage's wall time minus the script's own run time;
- the time outside training of a CLI run in a brand-new workspace (the user's Prefect server already up);
- the memory held by idle servers after N runs in N workspaces (RSS of every server process left running).
Writes benchmarks/results/team_platform.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "automl_agent.cli.app"]
CHURN = ROOT / "automl_agent" / "datasets" / "churn.csv"
INSTRUCTION = "Build a model to predict customer churn. F1 should be at least 0.55."


def _trigger(api: str, parameters: dict) -> tuple[float, dict]:
    deployment = httpx.get(f"{api}/deployments/name/automl-agent/run", timeout=30).json()
    started = time.perf_counter()
    created = httpx.post(f"{api}/deployments/{deployment['id']}/create_flow_run", json={"parameters": parameters},
                         timeout=30)
    created.raise_for_status()
    run_id = created.json()["id"]
    while time.perf_counter() - started < 1800:
        reply = httpx.get(f"{api}/flow_runs/{run_id}", timeout=30)
        if reply.status_code == 200:  # a busy sqlite-backed server answers 5xx now and then: ask again
            run = reply.json()
            if run["state_type"] in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED"):
                return time.perf_counter() - started, run
        time.sleep(0.5)
    raise TimeoutError(f"flow run {run_id} did not finish in 30 minutes")


def _latest_record(workspace: Path) -> dict:
    paths = sorted(workspace.glob("runs/*/run.json"), key=lambda p: p.stat().st_mtime)
    return json.loads(paths[-1].read_text())


def _server_rss_mb() -> tuple[int, float]:
    """Server processes (Prefect API servers and their supervisors) running now, and their resident memory."""
    found = [p for p in psutil.process_iter(["cmdline"]) if any(
        part in " ".join(p.info["cmdline"] or []) for part in ("prefect.server.api.server", "automl_agent.platform.prefect_server"))]
    return len(found), sum(p.memory_info().rss for p in found) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspaces", type=int, default=10)
    parser.add_argument("--budget", type=float, default=10.0)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="automl-bench-home-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_", "AUTOML_AGENT_"))}
    env["AUTOML_AGENT_HOME"] = str(home)
    numbers: dict = {"budget_s": args.budget}
    try:
        started = time.perf_counter()
        up = subprocess.run([*CLI, "stack", "up"], capture_output=True, text=True, env=env, check=True)
        numbers["stack_up_s"] = round(time.perf_counter() - started, 1)
        exports = dict(line.removeprefix("export ").split("=", 1) for line in up.stdout.splitlines()
                       if line.startswith("export "))
        team_env = {**env, **exports}
        subprocess.run([*CLI, "deploy"], capture_output=True, text=True, env=team_env, check=True)
        workspace = home / "stack" / "workspace"
        for label, pool in (("local", None), ("gpu_pool", "gpu")):
            parameters = {"instruction": INSTRUCTION, "data": str(CHURN), "budget": args.budget}
            if pool:
                parameters["training_pool"] = pool
            seconds, run = _trigger(exports["PREFECT_API_URL"], parameters)
            record = _latest_record(workspace)
            row = {"trigger_to_completed_s": round(seconds, 1), "state": run["state_type"],
                   "train_stage_s": record["timings"].get("train"), "f1": record["metrics"].get("f1")}
            if pool:
                detail = json.loads(sorted((workspace / "runs" / record["run_id"] / "training").glob("*.json"))[-1].read_text())
                row["script_s"] = detail["duration_s"]
                row["dispatch_overhead_s"] = round(detail["seconds_in_all"] - detail["duration_s"], 1)
            else:
                script_log = json.loads((Path(record["script_path"]).parents[1] / "attempt_v1" / "results.json").read_text())
                row["script_training_time_s"] = script_log.get("training_time_s")
            numbers[f"deployment_{label}"] = row
        subprocess.run([*CLI, "stack", "down"], capture_output=True, text=True, env=env, check=True)

        cli_rows = []
        for i in range(args.workspaces):
            workdir = home / f"workspace-{i}"
            started = time.perf_counter()
            proc = subprocess.run([*CLI, "--workdir", str(workdir), "run", INSTRUCTION, "--data", str(CHURN),
                                   "--budget", str(args.budget), "--json", "--quiet"], capture_output=True, text=True,
                                  env=env)
            wall = time.perf_counter() - started
            record = json.loads(proc.stdout)
            cli_rows.append({"workspace": i, "status": record["status"], "wall_s": round(wall, 1),
                             "train_s": record["timings"].get("train"),
                             "outside_training_s": round(wall - record["timings"].get("train", 0), 1)})
        numbers["cli_new_workspaces"] = cli_rows
        count, rss = _server_rss_mb()
        numbers["idle_servers_after_runs"] = {"workspaces": args.workspaces, "server_processes": count,
                                              "rss_mb": round(rss, 1)}
    finally:
        subprocess.run([*CLI, "stack", "down"], capture_output=True, text=True, env=env)
        subprocess.run([*CLI, "server", "stop"], capture_output=True, text=True, env=env)
    out = ROOT / "benchmarks" / "results"
    (out / "team_platform.json").write_text(json.dumps(numbers, indent=2))
    rows = numbers["cli_new_workspaces"]
    lines = [
        f"# Team platform (2-core machine, budget {args.budget:g} s, churn)", "",
        f"- stack up until healthy: **{numbers['stack_up_s']} s**",
        f"- `automl-agent/run` trigger to completed, training in the flow run: **{numbers['deployment_local']['trigger_to_completed_s']} s**",
        f"- the same with `training_pool=gpu`: **{numbers['deployment_gpu_pool']['trigger_to_completed_s']} s**; "
        f"dispatch overhead (train stage minus the script's own run): **{numbers['deployment_gpu_pool']['dispatch_overhead_s']} s**",
        f"- CLI runs in brand-new workspaces, time outside training: first **{rows[0]['outside_training_s']} s** "
        f"(starts the user's Prefect server), then median **{sorted(r['outside_training_s'] for r in rows[1:])[len(rows[1:]) // 2] if len(rows) > 1 else '-'} s**",
        f"- idle servers after {args.workspaces} runs in {args.workspaces} workspaces: "
        f"{numbers['idle_servers_after_runs']['server_processes']} processes, {numbers['idle_servers_after_runs']['rss_mb']} MB RSS",
        "", "| workspace | status | wall s | train s | outside training s |", "|---|---|---|---|---|",
    ] + [f"| {r['workspace']} | {r['status']} | {r['wall_s']} | {r['train_s']} | {r['outside_training_s']} |" for r in rows]
    (out / "team_platform.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
