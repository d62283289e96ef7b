"""The team platform as real processes on 127.0.0.1: `stack up`, `deploy`, a run triggered through the Prefect API
with training on the `gpu` pool's worker, the MLflow server holding everything, a bento served from
models:/NAME@champion, and `stack down` leaving nothing running."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest
from mlflow.tracking import MlflowClient

from automl_agent.platform import postgres
from automl_agent.platform.processes import free_port as _free_port

pytestmark = pytest.mark.integration
CLI = [sys.executable, "-m", "automl_agent.cli.app"]
TERMINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}




@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    home = tmp_path_factory.mktemp("team-home")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_", "BENTOML_", "AUTOML_AGENT_"))}
    env["AUTOML_AGENT_HOME"] = str(home)
    # PostgreSQL where the machine has it (as a team runs it): SQLite logs "database is locked" under the workers'
    # heartbeats and a few runs at once
    db = "postgres" if postgres.binaries() else "sqlite"
    up = subprocess.run([*CLI, "stack", "up", "--db", db], capture_output=True, text=True, timeout=300, env=env)
    info = json.loads((home / "stack" / "stack.json").read_text()) if (home / "stack" / "stack.json").exists() else None
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        exports = dict(line.removeprefix("export ").split("=", 1) for line in up.stdout.splitlines()
                       if line.startswith("export "))
        yield {"home": home, "env": {**env, **exports}, "info": info, "exports": exports, "up": up, "db": db}
    finally:
        processes = _stack_processes(info)
        down = subprocess.run([*CLI, "stack", "down"], capture_output=True, text=True, timeout=120, env=env)
        assert down.returncode == 0, down.stderr
        _, alive = psutil.wait_procs(processes, timeout=20)
        assert not alive, f"stack down left processes: {[p.pid for p in alive]}"


def _stack_processes(info) -> list[psutil.Process]:
    found = []
    for component in (info or {}).get("components", []):
        try:
            proc = psutil.Process(component["pid"])
            found += [proc, *proc.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
    return found


def _psql(home: Path, database: str, query: str) -> str:
    """A query on the stack's PostgreSQL as its role, through psql (the stack records the server's pid, the port is
    on its command line)."""
    info = json.loads((home / "stack" / "stack.json").read_text())
    server = psutil.Process(next(c["pid"] for c in info["components"] if c["name"] == "postgres"))
    port = server.cmdline()[server.cmdline().index("-p") + 1]
    env = {**os.environ, "PGPASSWORD": (home / "stack" / "postgres.password").read_text().strip()}
    bin_dir = postgres.binaries()
    psql = shutil.which("psql") or str(bin_dir / "psql")
    done = subprocess.run([psql, "-h", "127.0.0.1", "-p", port, "-U", postgres.ROLE, "-d", database, "-tAc", query],
                          capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _api(method: str, url: str, **kwargs) -> dict | list:
    """The Prefect API answers 503 now and then while its SQLite store is busy (its own client retries those too);
    anything else that is not a success fails the test with the body it sent."""
    for attempt in range(6):
        response = httpx.request(method, url, timeout=30, **kwargs)
        if response.status_code not in (429, 500, 502, 503) or attempt == 5:
            break
        time.sleep(1 + attempt)
    assert response.is_success, f"{method} {url} -> {response.status_code}: {response.text[:2000]}"
    return response.json()


def _wait_flow_run(api: str, flow_run_id: str, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = _api("GET", f"{api}/flow_runs/{flow_run_id}")
        if run["state_type"] in TERMINAL:
            return run
        time.sleep(1)
    raise AssertionError(f"flow run {flow_run_id} did not finish in {timeout} s")


def test_stack_status_reports_every_part_healthy(stack):
    status = subprocess.run([*CLI, "stack", "status", "--json"], capture_output=True, text=True, timeout=60,
                            env=stack["env"])
    report = json.loads(status.stdout)
    assert status.returncode == 0 and report["healthy"]
    expected = {"prefect-server", "mlflow", "worker-cpu", "worker-gpu"} | ({"postgres"} if stack["db"] == "postgres" else set())
    assert {c["name"] for c in report["components"]} == expected
    assert set(stack["exports"]) == {"PREFECT_API_URL", "MLFLOW_TRACKING_URI"}
    api = stack["exports"]["PREFECT_API_URL"]  # the UI finds its API where the stack serves it, not at :4200
    assert httpx.get(api.removesuffix("/api") + "/ui-settings", timeout=30).json()["api_url"] == api


@pytest.fixture(scope="module")
def deployed(stack) -> str:
    deployed = subprocess.run([*CLI, "deploy"], capture_output=True, text=True, timeout=120, env=stack["env"])
    assert deployed.returncode == 0, deployed.stderr
    return deployed.stdout


@pytest.fixture(scope="module")
def scheduled_run(stack, deployed, small_churn) -> dict:
    """One real run shared by the schedule and the gpu-pool tests: a one-minute Prefect schedule on automl-agent/run
    carrying the run's parameters (training on the gpu pool); Prefect's scheduler creates the run, the cpu worker
    runs it, the gpu worker trains. The schedule is removed once its first run has started."""
    env, api = stack["env"], stack["exports"]["PREFECT_API_URL"]
    added = subprocess.run([*CLI, "schedule", "add", "Which customers will churn? F1 at least 0.4.", "--data",
                            str(small_churn), "--every", "1m", "--model-name", "team-churn", "--budget", "8",
                            "--training-pool", "gpu", "--name", "minutely"],
                           capture_output=True, text=True, timeout=60, env=env)
    assert added.returncode == 0 and "every 0:01:00" in added.stdout, added.stdout + added.stderr
    listed = json.loads(subprocess.run([*CLI, "schedule", "list", "--json"], capture_output=True, text=True,
                                       timeout=60, env=env).stdout)
    assert [s["parameters"]["model_name"] for s in listed if s["name"] == "minutely"] == ["team-churn"]
    deployment = _api("GET", f"{api}/deployments/name/automl-agent/run")
    try:  # the first run the scheduler makes is ours; the schedule goes once it has started (its next run with it)
        deadline, first = time.monotonic() + 240, None
        while time.monotonic() < deadline and (first is None or first["state_type"] == "SCHEDULED"):
            runs = _api("POST", f"{api}/flow_runs/filter",
                        json={"flow_runs": {"deployment_id": {"any_": [deployment["id"]]}}, "sort": "EXPECTED_START_TIME_ASC"})
            first = next((r for r in runs if r["parameters"].get("model_name") == "team-churn" and r["auto_scheduled"]),
                         None)
            time.sleep(1)
    finally:
        removed = subprocess.run([*CLI, "schedule", "remove", "minutely"], capture_output=True, text=True, timeout=60,
                                 env=env)
        assert removed.returncode == 0, removed.stderr
    assert first is not None and first["state_type"] != "SCHEDULED", "the schedule started no run within 4 minutes"
    finished = _wait_flow_run(api, first["id"], timeout=480)
    return finished


def test_a_one_minute_schedule_with_parameters_creates_a_run_that_completes(scheduled_run):
    assert scheduled_run["state_type"] == "COMPLETED", scheduled_run["state"]
    assert scheduled_run["parameters"]["instruction"] == "Which customers will churn? F1 at least 0.4."
    assert scheduled_run["parameters"]["training_pool"] == "gpu" and scheduled_run["auto_scheduled"]


def test_a_deployment_run_trains_on_the_gpu_pool_and_lands_in_the_shared_registry(stack, deployed, scheduled_run,
                                                                                 small_churn):
    env, api, tracking = stack["env"], stack["exports"]["PREFECT_API_URL"], stack["exports"]["MLFLOW_TRACKING_URI"]
    assert "automl-agent/run" in deployed and "automl-agent-train/gpu" in deployed

    deployment = _api("GET", f"{api}/deployments/name/automl-agent/run")
    assert deployment["entrypoint"] == "automl_agent.flows.deployed:run" and deployment["work_pool_name"] == "cpu"
    assert {"instruction", "data", "training_pool"} <= set(deployment["parameter_openapi_schema"]["properties"])
    nightly = httpx.get(f"{api}/deployments/name/automl-agent-bench/nightly", timeout=30).json()
    assert nightly["paused"] and nightly["schedules"][0]["schedule"]["cron"] == "0 2 * * *"

    flow_run = scheduled_run
    assert flow_run["state_type"] == "COMPLETED", flow_run["state"]

    trainings = [t for t in httpx.post(f"{api}/flow_runs/filter", json={"flows": {"name": {"any_": ["automl-agent-train"]}}},
                                       timeout=30).json()
                 if flow_run["start_time"] <= t["created"] <= flow_run["end_time"]]  # the trainings this run started
    assert trainings and all(t["state_type"] == "COMPLETED" for t in trainings)
    assert {t["work_pool_name"] for t in trainings} == {"gpu"}
    # its own process, started by the gpu pool's worker, not the automl flow run's process
    assert trainings[0]["infrastructure_pid"] and trainings[0]["infrastructure_pid"] != flow_run["infrastructure_pid"]

    client = MlflowClient(tracking)
    version = client.get_model_version_by_alias("team-churn", "champion")
    run = client.get_run(version.run_id)
    top = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"instruction.txt", "requirement_spec.json", "agents", "plans", "verdicts", "scripts", "training"} <= top
    prompts = [a.path for a in client.list_artifacts(run.info.run_id, "agents")]
    assert any(p.endswith(".prompt.md") for p in prompts)
    outputs = {Path(a.path).name for a in client.list_artifacts(run.info.run_id, "training/v1-a1/outputs")}
    assert {"results.json", "model", "outcome.json"} <= outputs
    assert run.info.artifact_uri.startswith("mlflow-artifacts:")  # through the server's proxy, not a local path
    if stack["db"] == "postgres":  # the registry lives in PostgreSQL's mlflow database, beside Prefect's, not SQLite
        assert not (stack["home"] / "stack" / "mlflow.db").exists()
        assert "team-churn" in _psql(stack["home"], "mlflow", "SELECT name FROM registered_models")
        assert "flow_run" in _psql(stack["home"], "prefect", "SELECT tablename FROM pg_tables")

    port = _free_port()
    server = subprocess.Popen([*CLI, "--workdir", str(stack["home"] / "serving"), "serve", "models:/team-churn@champion",
                               "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, server.stdout.read()[-2000:]
            time.sleep(1)
        import pandas as pd

        rows = pd.read_csv(small_churn).drop(columns=["churn"]).head(3)
        answer = httpx.post(f"http://127.0.0.1:{port}/predict",
                            json={"records": json.loads(rows.to_json(orient="records"))}, timeout=60)
        assert answer.status_code == 200, answer.text
        assert len(answer.json()["predictions"]) == 3 and answer.json()["model"] == f"team-churn:{version.version}"
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=60)


def _wait_state(api: str, flow_run_id: str, states: set[str], timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = _api("GET", f"{api}/flow_runs/{flow_run_id}")
        if run["state_type"] in states | TERMINAL:
            return run
        time.sleep(1)
    raise AssertionError(f"flow run {flow_run_id} reached none of {states} in {timeout} s")


def _form_control(tab, name: str):
    """The input of one parameter in the Prefect UI's Run form, found by its label as a person reads it."""
    label = tab.locator("label.p-label__label", has=tab.locator(
        ".schema-form-property__label", has_text=re.compile(rf"^{name}(?: \(Optional\))?$"))).first
    box = label.locator("xpath=ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' p-label ')][1]")
    return box.locator("textarea, input:not([type=checkbox]), button.p-select-button__control").first


def _run_from_the_ui(ui: str, parameters: dict[str, str], pool: str, screenshots: Path) -> None:
    """What a team member does in the Prefect UI after `stack up`: the deployments page lists automl-agent/run; its
    Run button offers a custom run; the typed form (instruction and data required, the training pool a choice) is
    filled in and submitted."""
    from tests.browser import page

    with page(1400, 1000) as tab:
        tab.goto(f"{ui}/deployments", wait_until="networkidle", timeout=90_000)
        tab.get_by_role("link", name="run", exact=True).first.click()
        tab.get_by_role("button", name="Run", exact=True).click()
        tab.get_by_text("Custom run").click()
        tab.wait_for_url(re.compile(r"/run\b"), timeout=30_000)
        instruction = tab.locator(".schema-form-property__label", has_text=re.compile(r"^instruction$"))
        data = tab.locator(".schema-form-property__label", has_text=re.compile(r"^data$"))
        instruction.first.wait_for(timeout=30_000)
        assert instruction.count() == 1 and data.count() == 1, "instruction and data are not required in the form"
        for name, value in parameters.items():
            _form_control(tab, name).fill(value)
        choice = _form_control(tab, "training_pool")
        choice.click()
        choice.press("ArrowDown")  # opens its list of options
        options = tab.locator(".p-select-option")
        options.first.wait_for(timeout=10_000)
        assert [o.strip() for o in options.all_inner_texts()] == ["this run", "cpu", "gpu"]
        options.filter(has_text=re.compile(rf"^\s*{pool}\s*$")).click()
        from playwright.sync_api import expect

        expect(choice).to_have_text(re.compile(rf"^\s*{pool}\s*$"), timeout=10_000)
        tab.screenshot(path=str(screenshots / "prefect-run-form.png"), full_page=True)
        tab.get_by_role("button", name="Submit").click()
        try:
            tab.wait_for_url(re.compile(r"tab=Runs|/flow-run/"), timeout=30_000)
        except Exception:
            tab.screenshot(path=str(screenshots / "prefect-run-form-not-submitted.png"), full_page=True)
            raise


def test_a_run_started_from_the_prefect_ui_form_asks_pauses_and_goes_on_with_the_answer(stack, deployed, small_churn,
                                                                                       tmp_path):
    """Started as a person starts it, in Chromium: the UI's Run form. The instruction names no column, so the run
    pauses with the question; answered (as the UI's Resume form does, through the API), it completes."""
    from tests.browser import page, screenshot_dir

    api, tracking = stack["exports"]["PREFECT_API_URL"], stack["exports"]["MLFLOW_TRACKING_URI"]
    ui, screenshots = api.removesuffix("/api"), screenshot_dir(tmp_path)
    deployment = _api("GET", f"{api}/deployments/name/automl-agent/run")
    _run_from_the_ui(ui, {"instruction": "Predict the charges.", "data": str(small_churn), "budget": "6", "plans": "1",
                          "model_name": "asked-charges"}, pool="cpu", screenshots=screenshots)
    runs = _api("POST", f"{api}/flow_runs/filter", json={"flow_runs": {"deployment_id": {"any_": [deployment["id"]]}}})
    created = next(r for r in runs if r["parameters"].get("model_name") == "asked-charges")
    assert created["parameters"]["training_pool"] == "cpu" and created["parameters"]["budget"] == 6

    paused = _wait_state(api, created["id"], {"PAUSED"}, timeout=300)
    assert paused["state_type"] == "PAUSED", paused["state"]
    keys = paused["state"]["state_details"]["run_input_keyset"]
    form = _api("GET", f"{api}/flow_runs/{created['id']}/input/{keys['description']}")
    text = form if isinstance(form, str) else json.dumps(form)
    assert "monthly_charges" in text and "total_charges" in text  # the question and its candidates
    schema = _api("GET", f"{api}/flow_runs/{created['id']}/input/{keys['schema']}")
    assert {"target", "instruction"} <= set((json.loads(schema) if isinstance(schema, str) else schema)["properties"])

    _api("POST", f"{api}/flow_runs/{created['id']}/resume", json={"run_input": {"target": "total_charges"}})
    finished = _wait_flow_run(api, created["id"], timeout=420)
    assert finished["state_type"] == "COMPLETED", finished["state"]
    client = MlflowClient(tracking)
    version = client.get_model_version_by_alias("asked-charges", "champion")
    spec = json.loads(Path(client.download_artifacts(version.run_id, "requirement_spec.json")).read_text())
    assert spec["dataset"]["target"] == "total_charges" and spec["problem"]["downstream_task"] == "tabular_regression"
    with page(1400, 1000) as tab:  # and the UI shows it done
        tab.goto(f"{ui}/runs/flow-run/{created['id']}", wait_until="networkidle", timeout=90_000)
        tab.get_by_text("Completed").first.wait_for(timeout=30_000)
        tab.screenshot(path=str(screenshots / "prefect-run-completed.png"))


def test_a_drift_watch_on_shifted_traffic_retrains_through_the_champion_gate(stack, deployed, scheduled_run,
                                                                            small_churn, tmp_path):
    """The loop closed on the team stack: the traffic log of team-churn's @champion shows longer tenures and higher
    charges; the automl-agent-watch/drift deployment, run by the cpu worker, finds the drift, logs its report to the
    MLflow server, and retrains: a new version, which takes @champion only through the gate."""
    import pandas as pd

    from automl_agent.monitoring.served_log import ServedLog

    api, tracking = stack["exports"]["PREFECT_API_URL"], stack["exports"]["MLFLOW_TRACKING_URI"]
    client = MlflowClient(tracking)
    champion = client.get_model_version_by_alias("team-churn", "champion")
    versions_before = {v.version for v in client.search_model_versions("name='team-churn'")}
    frame = pd.read_csv(small_churn).drop(columns=["churn"]).sample(400, random_state=1)
    frame["tenure"] += 40
    frame["monthly_charges"] *= 1.7
    schema = {"task": "tabular_classification", "columns": [
        {"name": c, "type": "number" if pd.api.types.is_numeric_dtype(frame[c]) else "category"} for c in frame]}
    log = ServedLog(tmp_path / "logs" / "team-churn", schema, model=f"team-churn:{champion.version}")
    log.write(json.loads(frame.to_json(orient="records")), ["No"] * len(frame))
    log.close()

    deployment = _api("GET", f"{api}/deployments/name/automl-agent-watch/drift")
    parameters = {"model": "team-churn", "instruction": "Which customers will churn? F1 at least 0.4.",
                  "data": str(small_churn), "log_dir": str(tmp_path / "logs"), "budget": 6}
    created = _api("POST", f"{api}/deployments/{deployment['id']}/create_flow_run", json={"parameters": parameters})
    finished = _wait_flow_run(api, created["id"], timeout=480)
    assert finished["state_type"] == "COMPLETED", finished["state"]

    checks = client.search_runs([client.get_experiment_by_name("automl-agent-monitoring").experiment_id],
                                filter_string="tags.model_name = 'team-churn'")
    assert checks and checks[0].data.tags["drifted"] == "true"
    assert {"drift/drift.html", "drift/drift.json"} <= {a.path for a in client.list_artifacts(checks[0].info.run_id, "drift")}
    new = {v.version for v in client.search_model_versions("name='team-churn'")} - versions_before
    assert len(new) == 1, "the drift watch did not retrain"
    artifacts = _api("POST", f"{api}/artifacts/filter", json={"artifacts": {"key": {"any_": ["drift-team-churn"]}}})
    assert artifacts and "DRIFTED" in artifacts[0]["data"] and "tenure" in artifacts[0]["data"]


def test_no_scheduler_error_or_locked_database_in_any_stack_log(stack, scheduled_run):
    """Read last, after the scheduled, paused and gpu-pool runs: Prefect's scheduler works with the installed
    SQLAlchemy (pinned below 2.1), and on PostgreSQL nothing waits on a locked database."""
    version = MlflowClient(stack["exports"]["MLFLOW_TRACKING_URI"]).get_model_version_by_alias("team-churn", "champion")
    assert version.tags["automl.gate_alias"] == "champion" and version.tags["automl.gate_metric"] == "f1"
    for component in stack["info"]["components"]:
        log = Path(component["log"]).read_text(errors="replace")
        assert "Can't evaluate bulk DML" not in log, component["name"]
        assert stack["db"] == "sqlite" or "database is locked" not in log, component["name"]
