import os
import textwrap
from pathlib import Path

import pytest

from automl_agent.agents.operation_agent import render, static_problems
from automl_agent.sandbox import run_script

CONFIG = {"task": "tabular_classification", "data_path": "x.csv", "target": "y", "numeric": ["a"], "categorical": [],
          "metric": "accuracy", "direction": "maximize", "n_clusters": None, "candidates": [], "test_size": 0.2,
          "cv_folds": 3, "holdout_above_rows": 20000, "hpo_budget_s": 5, "max_trials": 5, "n_jobs": 1, "seed": 0}


def test_rendered_skeleton_is_complete_code():
    source = render(CONFIG)
    assert "CONFIG: dict = {}" not in source
    assert "'task': 'tabular_classification'" in source
    assert static_problems(source) == []


@pytest.mark.parametrize("bad, why", [
    ("import requests\nopen('results.json'); 'model.joblib'", "network"),
    ("import os\nkey = os.environ['OPENAI_API_KEY']\n'results.json model.joblib'", "environment"),
    ("demo.launch()\n'results.json model.joblib'", "demo server"),
    ("def broken(:\n", "syntax"),
])
def test_static_checks_reject_what_generated_code_may_not_do(bad, why):
    assert any(why in p for p in static_problems(bad))


def _script(tmp_path, body):
    path = tmp_path / "s.py"
    path.write_text(textwrap.dedent(body))
    return path


def test_sandbox_scrubs_secrets_and_runs_in_the_run_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    script = _script(tmp_path, """
        import os
        print("KEY", os.environ.get("OPENAI_API_KEY"))
        print("CWD", os.getcwd())
    """)
    result = run_script(script, tmp_path / "work", timeout_s=60)
    log = result.log_path.read_text()
    assert result.returncode == 0
    assert "KEY None" in log and f"CWD {tmp_path / 'work'}" in log


def test_sandbox_blocks_the_network(tmp_path):
    script = _script(tmp_path, """
        import socket
        try:
            socket.create_connection(("93.184.216.34", 80), timeout=2)
            print("CONNECTED")
        except PermissionError as exc:
            print("BLOCKED", exc)
    """)
    result = run_script(script, tmp_path / "work", timeout_s=60)
    assert "BLOCKED" in result.log_path.read_text()


def test_sandbox_kills_a_script_past_its_time_limit(tmp_path):
    script = _script(tmp_path, "import time\nprint('start', flush=True)\ntime.sleep(60)\n")
    result = run_script(script, tmp_path / "work", timeout_s=2)
    assert result.timed_out and result.returncode != 0 and result.duration_s < 20
    assert "time limit" in result.log_path.read_text()


def test_sandbox_caps_memory(tmp_path):
    script = _script(tmp_path, "x = bytearray(3 * 1024 ** 3)\nprint('ALLOCATED')\n")
    result = run_script(script, tmp_path / "work", timeout_s=60, memory_mb=1024)
    assert result.returncode != 0 and "ALLOCATED" not in result.log_path.read_text()


def _processes_running(marker: str) -> list[int]:
    """Host pids whose command line mentions `marker` (a pid printed inside the sandbox is in its own namespace)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def test_sandboxed_script_dies_with_the_flow_process(tmp_path):
    """A crashed flow (SIGKILL) must not leave its training script running as an orphan."""
    import signal
    import subprocess
    import sys
    import time

    script = _script(tmp_path, "import time\nprint('STARTED', flush=True)\ntime.sleep(120)\n")
    flow = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        from pathlib import Path
        from automl_agent.sandbox import run_script
        run_script(Path({str(script)!r}), Path({str(tmp_path / 'work')!r}), timeout_s=120,
                   on_line=lambda line: print(line, flush=True))
    """)], stdout=subprocess.PIPE, text=True)
    line = flow.stdout.readline()
    assert line.startswith("STARTED"), line
    assert _processes_running(str(script))
    os.kill(flow.pid, signal.SIGKILL)
    flow.wait(timeout=10)
    deadline = time.time() + 10
    while time.time() < deadline:
        if not _processes_running(str(script)):
            return
        time.sleep(0.1)
    for pid in _processes_running(str(script)):
        os.kill(pid, signal.SIGKILL)
    raise AssertionError("the training script outlived the flow process")
