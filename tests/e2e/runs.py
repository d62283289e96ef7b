"""What the end-to-end tests share: the CLI as a user calls it, and starting and stopping what it serves."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from automl_agent.platform.processes import free_port

CLI = [sys.executable, "-m", "automl_agent.cli.app"]
INSTRUCTION = "Build a model to predict customer churn. F1 should be at least 0.55 and one prediction must take under 10 ms."


def wait_ready(url: str, proc: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stdout.read()[-2000:] if proc.stdout else ''}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise AssertionError(f"{url} not ready after {seconds} s")


def launch(command: str, churn_run) -> tuple[subprocess.Popen, int, dict]:
    """`automl-agent serve|demo RUN_ID` on a free loopback port; the caller stops it."""
    workdir, proc, env = churn_run
    record = json.loads(proc.stdout)
    port = free_port()
    server = subprocess.Popen([*CLI, "--workdir", str(workdir), command, record["run_id"], "--port", str(port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    return server, port, record


def stop_server(proc: subprocess.Popen) -> None:
    """Stop a launched `serve` or `demo`: its whole process group (the CLI, bentoml serve, its workers) must end."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    raise AssertionError("stopping the server left processes behind")


def run_in_workspace(churn_run, instruction: str, data: Path, budget: int) -> tuple[Path, subprocess.CompletedProcess, dict]:
    """Another `run` in the churn run's workspace (its Prefect server is already up)."""
    workdir, _, env = churn_run
    proc = subprocess.run([*CLI, "--workdir", str(workdir), "run", instruction, "--data", str(data), "--budget",
                           str(budget), "--json"], capture_output=True, text=True, timeout=600, env=env)
    return workdir, proc, env
