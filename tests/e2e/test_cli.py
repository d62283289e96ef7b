"""The CLI as a user runs it, on the bundled churn data; then its bento served by `bentoml serve` and its
Gradio demo, both answering on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.e2e
CLI = [sys.executable, "-m", "automl_agent.cli"]
INSTRUCTION = "Build a model to predict customer churn. F1 should be at least 0.55 and one prediction must take under 10 ms."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def churn_run(tmp_path_factory, churn_csv):
    workdir = tmp_path_factory.mktemp("e2e")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_", "BENTOML_", "AUTOML_AGENT_"))}
    env["AUTOML_AGENT_HOME"] = str(tmp_path_factory.mktemp("user-home"))  # the user's one Prefect server lives here
    proc = subprocess.run([*CLI, "--workdir", str(workdir), "run", INSTRUCTION, "--data", str(churn_csv), "--budget", "10",
                           "--json"], capture_output=True, text=True, timeout=600, env=env)
    yield workdir, proc, env
    subprocess.run([*CLI, "--workdir", str(workdir), "server", "stop"], capture_output=True, text=True, timeout=60, env=env)


def test_run_prints_stages_and_writes_run_json(churn_run):
    workdir, proc, _ = churn_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    on_disk = json.loads((workdir / "runs" / record["run_id"] / "run.json").read_text())
    assert on_disk == record
    for key in ("run_id", "status", "message", "task_type", "target", "metrics", "constraints", "mlflow_tracking_uri",
                "success_score", "mlflow_run_id", "registered_model", "bento_tag", "script_path", "demo_path", "timings", "llm"):
        assert key in record
    assert record["status"] == "succeeded" and record["target"] == "churn"
    assert record["metrics"]["f1"] >= 0.55
    assert {c["name"]: c["satisfied"] for c in record["constraints"]} == {"f1": True, "latency_ms": True}
    assert record["success_score"] == 1.0 and record["registered_model"]["alias"] == "champion"
    assert record["llm"]["backend"] == "offline" and record["llm"]["calls"] >= 10
    assert Path(record["script_path"]).exists() and Path(record["demo_path"]).exists()
    for stage in ("INIT", "PLAN", "EXECUTE", "IMPLEMENT", "DELIVER", "trial", "SUCCEEDED"):
        assert stage in proc.stderr
    listing = subprocess.run([*CLI, "--workdir", str(workdir), "runs"], capture_output=True, text=True, timeout=120)
    assert record["run_id"] in listing.stdout and "succeeded" in listing.stdout


def test_the_run_is_watched_from_the_users_prefect_server(churn_run):
    """`run` started the user's Prefect server; its API knows the flow run and its UI page answers."""
    workdir, proc, env = churn_run
    record = json.loads(proc.stdout)
    status = subprocess.run([*CLI, "--workdir", str(workdir), "server", "status"], capture_output=True, text=True,
                            timeout=60, env=env)
    assert status.returncode == 0 and "healthy" in status.stdout, status.stdout + status.stderr
    info = json.loads((Path(env["AUTOML_AGENT_HOME"]) / "prefect" / "server.json").read_text())
    assert info["url"].startswith("http://127.0.0.1:")
    flow_run = httpx.get(f"{info['url']}/api/flow_runs/{record['prefect_flow_run_id']}", timeout=30).json()
    assert flow_run["name"] == f"automl-{record['run_id']}" and flow_run["state_type"] == "COMPLETED"
    assert record["prefect_ui_url"].startswith(info["url"]) and record["prefect_ui_url"] in proc.stderr
    page = httpx.get(record["prefect_ui_url"], headers={"accept": "text/html"}, timeout=30, follow_redirects=True)
    assert page.status_code == 200 and "<html" in page.text.lower()  # the UI app serves its deep links


def test_a_registry_consumer_predicts_on_the_training_csv_as_read(churn_run, churn_csv):
    """models:/NAME@champion with mlflow.pyfunc, on a DataFrame straight from the CSV (integer columns stay int64)."""
    import mlflow

    from automl_agent.settings import point_mlflow_at
    import pandas as pd

    record = json.loads(churn_run[1].stdout)
    point_mlflow_at(record["mlflow_tracking_uri"])
    name = record["registered_model"]["name"]
    model = mlflow.pyfunc.load_model(f"models:/{name}@champion")
    rows = pd.read_csv(churn_csv).drop(columns=["churn"]).head(50)
    assert any(pd.api.types.is_integer_dtype(t) for t in rows.dtypes)
    assert len(model.predict(rows)) == 50
    description = mlflow.MlflowClient().get_model_version(name, record["registered_model"]["version"]).description
    assert "f1" in description and f"models:/{name}@champion" in description


def test_a_second_workspace_reuses_the_users_prefect_server(churn_run, tmp_path_factory, churn_csv):
    """A brand-new workspace starts no server of its own; `server stop` finds the one server from any folder."""
    workdir, _, env = churn_run
    before = json.loads((Path(env["AUTOML_AGENT_HOME"]) / "prefect" / "server.json").read_text())
    other = tmp_path_factory.mktemp("second-workspace")
    status = subprocess.run([*CLI, "--workdir", str(other), "server", "status"], capture_output=True, text=True,
                            timeout=60, env=env)
    assert status.returncode == 0 and str(before["port"]) in status.stdout
    assert not (other / "prefect" / "server.json").exists()


def test_a_crashed_run_resumes_from_its_finished_stages(churn_run, churn_csv):
    """SIGKILL the CLI while it trains; rerunning the same --run-id reuses every finished stage and completes."""
    workdir, _, env = churn_run
    # F1 only: a latency limit would make this test depend on how loaded the machine is
    command = [*CLI, "--workdir", str(workdir), "run", "Build a model to predict customer churn. F1 should be at least 0.5.",
               "--data", str(churn_csv), "--budget", "10", "--run-id", "crash-and-resume"]
    crashed = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                               start_new_session=True)
    seen = []
    try:
        deadline = time.time() + 300
        while time.time() < deadline:
            line = crashed.stderr.readline()
            seen.append(line)
            if "trial" in line or not line:
                break
    finally:
        os.killpg(crashed.pid, 9)
        crashed.wait(timeout=30)
    assert any("trial" in line for line in seen), "".join(seen)[-3000:]
    interrupted = json.loads((workdir / "runs" / "crash-and-resume" / "run.json").read_text())
    assert interrupted["status"] == "running" and interrupted["mlflow_run_id"]

    resumed = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=600, env=env)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    record = json.loads(resumed.stdout)
    assert record["status"] == "succeeded" and record["mlflow_run_id"] == interrupted["mlflow_run_id"]
    for stage in ("verify_request", "parse_instruction", "make_plans", "execute_plan", "verify_execution", "write_pipeline"):
        assert stage in record["resumed_stages"], record["resumed_stages"]
    assert "run_pipeline" not in record["resumed_stages"]  # it never finished, so it ran again
    assert "resumed from the finished stage" in resumed.stderr


def _wait_ready(url: str, proc: subprocess.Popen, seconds: float = 120) -> None:
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


def _launch(command: str, churn_run) -> tuple[subprocess.Popen, int, dict]:
    """`automl-agent serve|demo RUN_ID` on a free loopback port; the caller stops it."""
    workdir, proc, env = churn_run
    record = json.loads(proc.stdout)
    port = free_port()
    server = subprocess.Popen([*CLI, "--workdir", str(workdir), command, record["run_id"], "--port", str(port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    return server, port, record


def _stop(proc: subprocess.Popen) -> None:
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


def test_bento_serves_predictions_and_rejects_bad_payloads(churn_run, churn_frame):
    server, port, _ = _launch("serve", churn_run)
    try:
        _wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        rows = churn_frame.drop(columns=["churn"]).head(5).to_dict(orient="records")
        ok = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": rows}, timeout=30)
        assert ok.status_code == 200, ok.text
        assert set(ok.json()["predictions"]) <= {"Yes", "No"} and len(ok.json()["predictions"]) == 5
        missing = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"tenure": 3}]}, timeout=30)
        assert missing.status_code == 400 and "lacks columns" in missing.text
        wrong_type = dict(rows[0], tenure="three")
        bad = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [wrong_type]}, timeout=30)
        assert bad.status_code == 400 and "tenure" in bad.text
    finally:
        _stop(server)


def test_gradio_demo_answers_through_gradio_client(churn_run):
    from gradio_client import Client

    demo, port, record = _launch("demo", churn_run)
    try:
        _wait_ready(f"http://127.0.0.1:{port}/", demo)
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        schema = json.loads(Path(record["demo_path"]).with_name("demo_config.json").read_text())["schema"]
        example = schema["example"][0]
        answer = client.predict(*[example[c["name"]] for c in schema["columns"]], api_name="/predict")
        assert answer in {"Yes", "No"}
    finally:
        _stop(demo)


def _run_in_workspace(churn_run, instruction: str, data: Path, budget: int) -> tuple[Path, subprocess.CompletedProcess, dict]:
    """Another `run` in the churn run's workspace (its Prefect server is already up)."""
    workdir, _, env = churn_run
    proc = subprocess.run([*CLI, "--workdir", str(workdir), "run", instruction, "--data", str(data), "--budget",
                           str(budget), "--json"], capture_output=True, text=True, timeout=600, env=env)
    return workdir, proc, env


def test_a_dry_run_shows_what_was_understood_and_trains_nothing(churn_run, tmp_path):
    """--dry-run with --workdir after the command, a target named by meaning and a constraint in plain words."""
    workdir, _, env = churn_run
    data = tmp_path / "loans.csv"
    from automl_agent.benchmark.awkward_tables import write_tables

    write_tables(tmp_path)
    started = time.perf_counter()
    proc = subprocess.run([*CLI, "run", "Will the applicant end up defaulting? Each check has to come back within 20 ms.",
                           "--data", str(data), "--dry-run", "--json", "--quiet", "--workdir", str(workdir)],
                          capture_output=True, text=True, timeout=300, env=env)
    seconds = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    assert record["status"] == "planned" and record["target"] == "Defaulted"
    assert record["task_type"] == "tabular_classification" and record["metric"] == "accuracy"
    assert record["constraints"] == [{"name": "latency_ms", "op": "<=", "target": 20.0, "measured": None,
                                      "satisfied": None}]
    assert len(record["plans"]) == 3 and all(p["model_families"] for p in record["plans"])
    assert record["registered_model"] is None and record["bento_tag"] is None and record["script_path"] is None
    assert not list((workdir / "runs" / record["run_id"]).glob("attempt*"))
    assert "PLANNED" in proc.stderr and "target:      'Defaulted'" in proc.stderr  # shown even with --quiet
    assert seconds < 60, seconds


@pytest.fixture(scope="module")
def forecast_run(tmp_path_factory, churn_run):
    """A forecasting run on the first 3,000 hours of ETTh1."""
    data = tmp_path_factory.mktemp("ts") / "etth1.csv"
    import pandas as pd

    from tests.conftest import DATASETS

    pd.read_csv(DATASETS / "ETTh1.csv").head(3000).to_csv(data, index=False)
    return _run_in_workspace(churn_run, "Forecast OT for the next 24 hours from the last 96 hours; RMSLE at most 0.6.",
                             data, budget=8)


def test_a_forecast_is_served_over_http(forecast_run):
    workdir, proc, env = forecast_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    assert record["task_type"] == "time_series_forecasting" and record["target"] == "OT"
    assert {"rmsle", "mae"} <= set(record["metrics"])
    server, port, _ = _launch("serve", forecast_run)
    try:
        _wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        history = json.loads(Path(record["demo_path"]).with_name("demo_config.json").read_text())["schema"]["example"][0]["history"]
        assert len(history) == 96
        ok = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"history": history}]}, timeout=30)
        assert ok.status_code == 200, ok.text
        forecast = ok.json()["predictions"][0]
        assert len(forecast) == 24 and all(isinstance(v, float) for v in forecast)
        short = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"history": history[:10]}]}, timeout=30)
        assert short.status_code == 400 and "at least 96 numbers" in short.text
    finally:
        _stop(server)


def test_the_forecast_demo_takes_an_uploaded_series(forecast_run, tmp_path):
    from gradio_client import Client, handle_file

    import pandas as pd

    from tests.conftest import DATASETS

    upload = tmp_path / "recent.csv"
    pd.read_csv(DATASETS / "ETTh1.csv").tail(120).to_csv(upload, index=False)  # the demo picks the OT column
    demo, port, _ = _launch("demo", forecast_run)
    try:
        _wait_ready(f"http://127.0.0.1:{port}/", demo)
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        text = client.predict(handle_file(str(upload)), api_name="/upload_history")
        assert len(text.split(",")) == 120
        forecast = client.predict(text, api_name="/predict")
        assert len(forecast.split(",")) == 24 and all(float(v) == float(v) for v in forecast.split(","))
    finally:
        _stop(demo)


@pytest.fixture(scope="module")
def image_run(tmp_path_factory, churn_run):
    """An image classification run on scikit-learn's digits written out as PNG files and labels.csv."""
    from automl_agent.benchmark.suite import image_folder

    labels = image_folder("digits", tmp_path_factory.mktemp("images"))
    return _run_in_workspace(churn_run, "Recognise the digit in each image; accuracy at least 0.85.", labels, budget=12)


def test_an_image_classifier_is_served_over_http(image_run):
    from automl_agent.runtime import image_to_base64

    workdir, proc, env = image_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    assert record["task_type"] == "image_classification" and record["metrics"]["accuracy"] >= 0.85
    server, port, _ = _launch("serve", image_run)
    try:
        _wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        labels = Path(record["data_path"])
        import pandas as pd

        rows = pd.read_csv(labels).tail(5)
        payload = {"records": [{"image": image_to_base64(str(labels.parent / p))} for p in rows["image"]]}
        ok = httpx.post(f"http://127.0.0.1:{port}/predict", json=payload, timeout=60)
        assert ok.status_code == 200, ok.text
        predictions = ok.json()["predictions"]
        assert len(predictions) == 5 and set(predictions) <= {str(d) for d in range(10)}
        assert sum(p == str(t) for p, t in zip(predictions, rows["label"])) >= 3
        bad = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"image": 3}]}, timeout=30)
        assert bad.status_code == 400 and "base64" in bad.text
    finally:
        _stop(server)


@pytest.fixture(scope="module")
def graph_run(tmp_path_factory, churn_run):
    """Node classification on Zachary's karate club given as nodes.csv + edges.csv (no node features)."""
    from automl_agent.benchmark.suite import graph_folder

    folder = graph_folder("karate", tmp_path_factory.mktemp("graph"))
    return _run_in_workspace(churn_run, "Predict the community of each club member from the friendship graph.", folder,
                             budget=8)


def test_a_node_classifier_is_served_over_http_and_in_the_demo(graph_run):
    from gradio_client import Client

    workdir, proc, env = graph_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    assert record["task_type"] == "node_classification" and record["target"] == "community"
    assert record["metrics"]["accuracy"] >= 0.5  # 4 communities: chance is about 0.25
    server, port, _ = _launch("serve", graph_run)
    try:
        _wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        ok = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"node": "0"}, {"node": 33}]}, timeout=60)
        assert ok.status_code == 200, ok.text
        assert ok.json()["predictions"] == ["c1", "c0"]  # the instructor's and the administrator's communities
        unknown = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"node": "999"}]}, timeout=30)
        assert unknown.status_code == 400 and "unknown node" in unknown.text
        wrong = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"node": [1]}]}, timeout=30)
        assert wrong.status_code == 400 and "node id" in wrong.text
    finally:
        _stop(server)
    demo, port, _ = _launch("demo", graph_run)
    try:
        _wait_ready(f"http://127.0.0.1:{port}/", demo)
        assert Client(f"http://127.0.0.1:{port}/", verbose=False).predict("33", api_name="/predict") == "c0"
    finally:
        _stop(demo)
