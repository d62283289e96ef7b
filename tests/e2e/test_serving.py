"""The churn run's bento served by `automl-agent serve` on 127.0.0.1: predictions and bad payloads, an empty
venv, concurrent load behind an API key, the drift loop, and requests fuzzed from its OpenAPI document."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automl_agent.platform.processes import free_port
from tests import doc_blocks
from tests.e2e.runs import CLI, launch, stop_server, wait_ready

pytestmark = pytest.mark.e2e



def test_bento_serves_predictions_and_rejects_bad_payloads(churn_run, churn_frame):
    server, port, _ = launch("serve", churn_run)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        rows = churn_frame.drop(columns=["churn"]).head(5).to_dict(orient="records")
        ok = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": rows}, timeout=30)
        assert ok.status_code == 200, ok.text
        assert set(ok.json()["predictions"]) <= {"Yes", "No"} and len(ok.json()["predictions"]) == 5
        missing = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"tenure": 3}]}, timeout=30)
        assert missing.status_code == 400 and "lacks columns" in missing.text
        wrong_type = dict(rows[0], tenure="three")
        bad = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [wrong_type]}, timeout=30)
        assert bad.status_code == 400 and "tenure" in bad.text
        # docs/howto/serving.md's example, as written there (its port aside)
        example = doc_blocks.run_block("serving-call", {"localhost:3000": f"127.0.0.1:{port}"})
        assert example.returncode == 0, example.stderr
        answer, schema = doc_blocks.json_values(example.stdout)
        assert answer["predictions"][0] in {"Yes", "No"} and "tenure" in json.dumps(schema)
    finally:
        stop_server(server)


def test_the_bento_serves_from_an_empty_venv_with_only_its_own_requirements(churn_run, churn_frame, tmp_path):
    """A bento that builds anywhere: its requirements are pinned, name nothing that is not on a package index, and
    install into an empty venv offline (from the cache `make setup` filled); that venv has no automl-agent, yet it
    serves the bento, whose own copy of the project's code is all it needs."""
    import shutil

    workdir, proc, env = churn_run
    record = json.loads(proc.stdout)
    name, version = record["bento_tag"].split(":")
    bento = workdir / "bentoml" / "bentos" / name / version
    requirements = [line for line in (bento / "env" / "python" / "requirements.txt").read_text().splitlines()
                    if line.strip() and not line.startswith(("#", "-"))]
    assert all("==" in line for line in requirements), requirements
    assert not any(line.split("==")[0].lower() in {"automl-agent", "automl_agent"} for line in requirements)
    assert (bento / "src" / "automl_agent" / "serving" / "payload.py").is_file()

    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    install = [uv, "pip", "install", "--quiet", "--python", python, "-r", str(bento / "env" / "python" / "requirements.txt")]
    installed = subprocess.run([*install, "--offline"], capture_output=True, text=True, timeout=900)
    if installed.returncode != 0 and "needs to be downloaded from a registry" in installed.stderr:
        # a wheel that pip installed for `make setup` (torch's own dependencies) is not in uv's cache: the package
        # index has it, and the same pins must resolve there
        installed = subprocess.run(install, capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    assert subprocess.run([python, "-c", "import automl_agent"], capture_output=True, cwd=tmp_path).returncode != 0

    clean_env = {k: v for k, v in env.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    clean_env.update(BENTOML_HOME=str(workdir / "bentoml"), BENTOML_DO_NOT_TRACK="true")
    port = free_port()
    server = subprocess.Popen([python, "-m", "bentoml", "serve", record["bento_tag"], "--host", "127.0.0.1",
                               "--port", str(port)], env=clean_env, cwd=tmp_path, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", server, seconds=180)
        rows = churn_frame.drop(columns=["churn"]).head(5).to_dict(orient="records")
        answer = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": rows}, timeout=60)
        assert answer.status_code == 200, answer.text
        assert set(answer.json()["predictions"]) <= {"Yes", "No"} and len(answer.json()["predictions"]) == 5
    finally:
        stop_server(server)


def test_the_bento_holds_under_concurrent_load_behind_an_api_key(churn_run, churn_frame):
    """50 concurrent clients for a few seconds (bounded): every valid request answered, every invalid one a 400 with
    its message, a body over the limit a 413, nothing without the key; then each bad payload of the table."""
    from automl_agent.serving.loadgen import hammer
    from tests.bad_inputs import PAYLOAD_CASES

    workdir, proc, env = churn_run
    record = json.loads(proc.stdout)
    port = free_port()
    server = subprocess.Popen([*CLI, "--workdir", str(workdir), "serve", record["run_id"], "--port", str(port)],
                              env={**env, "AUTOML_AGENT_API_KEY": "team-key-123", "AUTOML_AGENT_MAX_REQUEST_MB": "8"},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        url = f"http://127.0.0.1:{port}/predict"
        rows = churn_frame.drop(columns=["churn"]).head(40).to_dict(orient="records")
        bodies = [json.dumps({"records": [row]}).encode() for row in rows]
        key = {"Authorization": "Bearer team-key-123"}
        refused = httpx.post(url, content=bodies[0], headers={"content-type": "application/json"}, timeout=30)
        assert refused.status_code == 401 and "API key" in refused.json()["error"]

        # warm-up, not measured: the first requests load the model and start the batching dispatcher, which once
        # held 50 clients for 5.5 s in CI before answering at full speed
        warm_up = hammer(url, bodies, clients=50, duration_s=2, max_requests=300, headers=key)
        assert warm_up.errors == 0, warm_up.first_error
        valid = hammer(url, bodies, clients=50, duration_s=4, max_requests=3000, headers=key)
        assert valid.requests >= 200 and valid.errors == 0, (valid, warm_up)
        invalid = hammer(url, [json.dumps({"records": [dict(rows[0], tenure="ten")]}).encode()], clients=50,
                         duration_s=2, max_requests=500, headers=key, expect_status=400)
        assert invalid.errors == 0, invalid.first_error
        answer = httpx.post(url, json={"records": [dict(rows[0], tenure="ten")]}, headers=key, timeout=30)
        assert "column 'tenure' must be a finite number" in answer.text

        for case in PAYLOAD_CASES:  # the payload rows of docs/bad-inputs.md
            answer = httpx.post(url, content=case.body(rows[0]), timeout=60, headers={
                "content-type": "application/json", **(key if case.with_key else {})})
            got = answer.json().get("error", "") if answer.status_code != 200 else ""
            assert (answer.status_code, got) == (case.status, case.message), case.id
        mixed = httpx.post(url, json={"records": rows[:3]}, headers=key, timeout=30).json()
        assert len(mixed["predictions"]) == 3 and mixed["task"] == "tabular_classification"
    finally:
        stop_server(server)



def test_the_drift_loop_flags_shifted_traffic_and_passes_unshifted(churn_run, churn_frame, tmp_path):
    """Serve, send held-out rows as they are: `monitor` passes (exit 0). Send the same customers with longer tenure
    and higher charges: `monitor` names those columns, logs the report to MLflow and exits 3. Also the service's
    own prediction counts on /metrics."""
    import shutil

    from automl_agent.serving.loadgen import hammer

    workdir, proc, env = churn_run
    record = json.loads(proc.stdout)
    logs = tmp_path / "served"
    port = free_port()
    server = subprocess.Popen([*CLI, "--workdir", str(workdir), "serve", record["run_id"], "--port", str(port)],
                              env={**env, "AUTOML_AGENT_MONITOR_DIR": str(logs)}, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
    # the customers as the training table spells them (churn_export renamed one payment method: traffic that says
    # "Mailed check" to a model trained on "Mailed chèque" is a shift, and monitor rightly names it)
    trained_on = churn_frame.assign(payment_method=churn_frame.payment_method.replace({"Mailed check": "Mailed chèque"}))
    customers = json.loads(trained_on.drop(columns=["churn"]).sample(900, random_state=7).to_json(orient="records"))
    rows = customers[:300]
    shifted = [dict(row, tenure=row["tenure"] + 36, monthly_charges=row["monthly_charges"] * 1.6) for row in customers[300:]]
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(f"{url}/readyz", server)
        calm = hammer(f"{url}/predict", [json.dumps({"records": [row]}).encode() for row in rows], clients=20,
                      duration_s=60, max_requests=len(rows))
        assert calm.errors == 0 and calm.requests == len(rows), calm
        time.sleep(0.5)
        shutil.copytree(logs, tmp_path / "calm")
        moved = hammer(f"{url}/predict", [json.dumps({"records": shifted[:300]}).encode(),
                                          json.dumps({"records": shifted[300:]}).encode()], clients=1, duration_s=60,
                       max_requests=2)
        assert moved.errors == 0, moved
        metrics = httpx.get(f"{url}/metrics", timeout=30).text
        assert "automl_agent_records_total 900.0" in metrics and 'automl_agent_predictions_total{prediction="Yes"}' in metrics
    finally:
        stop_server(server)

    def monitor(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([*CLI, "--workdir", str(workdir), "monitor", record["run_id"], "--json", *extra],
                              capture_output=True, text=True, timeout=300, env=env)

    passed = monitor("--log-dir", str(tmp_path / "calm"))
    assert passed.returncode == 0, passed.stdout[-2000:] + passed.stderr[-2000:]
    assert json.loads(passed.stdout)["served_rows"] == 300
    flagged = monitor("--log-dir", str(logs))
    assert flagged.returncode == 3, flagged.stdout[-2000:] + flagged.stderr[-2000:]
    report = json.loads(flagged.stdout)
    drifted = {c["column"] for c in report["columns"] if c["drifted"]}
    assert {"tenure", "monthly_charges"} <= drifted and len(drifted) <= 4, drifted
    assert Path(report["report"]).stat().st_size > 100_000 and report["mlflow_run_id"]


@pytest.fixture(scope="module")
def served_churn(churn_run):
    """The churn bento served once for the fuzzing tests; its base URL."""
    workdir, proc, env = churn_run
    record = json.loads(proc.stdout)
    port = free_port()
    server = subprocess.Popen([*CLI, "--workdir", str(workdir), "serve", record["run_id"], "--port", str(port),
                               "--workers", "1"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              start_new_session=True)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(server)


def _answers_well(response) -> None:
    assert response.status_code < 500, response.text[:500]
    if response.status_code >= 400:
        assert response.json()["error"], response.text[:500]


def test_requests_generated_from_the_openapi_document_never_get_a_5xx(served_churn):
    """schemathesis reads the bento's own OpenAPI document and generates requests for /predict and /schema
    (bounded: 60 per operation); each gets an answer or a 4xx with a message."""
    schema = schemathesis.openapi.from_url(f"{served_churn}/docs.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    fuzzed = [op for op in operations if op.path in ("/predict", "/schema")]
    assert len(fuzzed) == 2
    for operation in fuzzed:
        @settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def call(case):
            _answers_well(case.call(timeout=30))
        call()


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                        max_size=3), max_leaves=8)


def test_records_with_odd_values_reach_the_model_and_never_get_a_5xx(served_churn, churn_frame):
    """Records of the right columns whose values are drawn from anything JSON holds (huge numbers, unseen
    categories, empty strings, unicode, nested objects): a prediction, or a 400 that says which value is wrong."""
    row = churn_frame.drop(columns=["churn"]).iloc[0].to_dict()
    columns = list(row)
    statuses = []

    @settings(max_examples=120, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.dictionaries(st.sampled_from(columns), JSON_VALUES, max_size=4), min_size=1, max_size=4))
    def call(changes):
        records = [{**row, **change} for change in changes]
        body = json.dumps({"records": records}, allow_nan=True)
        response = httpx.post(f"{served_churn}/predict", content=body, timeout=30,
                              headers={"content-type": "application/json"})
        statuses.append(response.status_code)
        _answers_well(response)
        if response.status_code == 200:
            assert len(response.json()["predictions"]) == len(records)
    call()
    assert statuses.count(200) >= 10 and statuses.count(400) >= 10  # both paths were exercised

