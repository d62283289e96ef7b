"""The whole flow with an LLM brain over HTTP (a real local server speaking chat-completions): the operation
agent's code attempts with error feedback, accounting, traces, the prompt registry and the token budget."""

from __future__ import annotations

import json
import re
from pathlib import Path

import mlflow
import pytest
from mlflow.tracking import MlflowClient

from automl_agent import prompt_registry
from automl_agent.settings import point_mlflow_at
from tests.chat_server import ChatServer

pytestmark = pytest.mark.integration
INSTRUCTION = "Build a model to predict customer churn. F1 should be at least 0.4."
BROKEN = ("import json\nraise RuntimeError('boom: the model wrote a bug')\n"
          "# writes results.json and model/model.joblib\n")


class CodingModel:
    """Writes a broken script first, then, shown the error, edits the skeleton it was given; answers nothing else
    well."""

    def __init__(self):
        self.script_requests: list[str] = []

    def __call__(self, body: dict) -> str:
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if "Task skeleton" not in first_user:
            return "{}"  # invalid for every other contract: the offline rules answer those steps
        self.script_requests.append(first_user)
        if len(self.script_requests) == 1:
            return json.dumps({"source": BROKEN, "notes": "first try"})
        # the fix comes as an edit of the skeleton it was shown, not the whole script written out again
        assert "'cv_folds': 3" in re.search(r"```python\n(.*)\n```", first_user, flags=re.DOTALL).group(1)
        return json.dumps({"edits": [{"find": "'cv_folds': 3", "replace": "'cv_folds': 2"}], "notes": "fixed"})


def test_llm_writes_the_script_and_fixes_it_from_the_error(run_cli, small_churn, monkeypatch, workdir):
    model = CodingModel()
    with ChatServer([], route=model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("AUTOML_AGENT_PRICES", '{"local-coder": [1.0, 4.0]}')
        code, record, err = run_cli("run", INSTRUCTION, "--data", str(small_churn), "--budget", "5", "--plans", "1",
                                    "--llm", "openai:local-coder", "--code-attempts", "2")
    assert code == 0, err
    assert record.status == "succeeded"
    scripts = Path(record.script_path).parent
    assert Path(record.script_path).name == "train_v1_a2.py"
    assert "boom" in (workdir / "runs" / record.run_id / "attempt_v1" / "train_v1.log").read_text()
    assert len(model.script_requests) == 2 and "boom" in model.script_requests[1]  # the error went back to the model
    assert (scripts / "train_v1.py").read_text() == BROKEN  # every attempt's script is kept
    assert "'cv_folds': 2" in Path(record.script_path).read_text()  # the second attempt: the skeleton, edited
    meta = MlflowClient(record.mlflow_tracking_uri)
    artifacts = {a.path for a in meta.list_artifacts(record.mlflow_run_id, "scripts")}
    assert {"scripts/train_v1.py", "scripts/train_v1_a2.py", "scripts/train_v1.log", "scripts/train_v1_a2.log"} <= artifacts

    llm = record.llm
    assert llm.backend == "openai:local-coder" and llm.calls >= 10 and llm.tokens > 0
    assert llm.offline_fallbacks and llm.by_step["operation.write_script"]["calls"] == 2
    assert llm.cost_usd == pytest.approx((llm.prompt_tokens * 1.0 + llm.completion_tokens * 4.0) / 1e6)
    assert llm.cost_at_reference_usd > 0

    traces = mlflow.MlflowClient(record.mlflow_tracking_uri).search_traces(
        locations=[meta.get_run(record.mlflow_run_id).info.experiment_id], run_id=record.mlflow_run_id)
    assert len(traces) == 1
    spans = [s for s in traces[0].data.spans if s.parent_id]
    assert len(spans) == llm.calls and {"manager.verify_request", "operation.write_script"} <= {s.name for s in spans}
    assert all(s.attributes["backend"] == "openai:local-coder" for s in spans)

    assert llm.prompt_versions["automl-agent.operation.write_script"] == "1"
    run_tags = meta.get_run(record.mlflow_run_id).data.tags
    assert run_tags["prompt.automl-agent.operation.write_script"] == "1"
    point_mlflow_at(record.mlflow_tracking_uri)
    registered = mlflow.genai.load_prompt("prompts:/automl-agent.operation.write_script/1")
    assert "Task skeleton" in registered.template


def test_the_token_budget_stops_the_run_cleanly(run_cli, small_churn, monkeypatch):
    with ChatServer([], route=lambda body: "{}") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code, record, err = run_cli("run", INSTRUCTION, "--data", str(small_churn), "--budget", "5", "--plans", "1",
                                    "--llm", "openai:local-coder", "--max-tokens-per-run", "500")
    assert code == 1 and record.status == "failed"
    assert "--max-tokens-per-run" in record.message and "Traceback" not in err
    assert 500 <= record.llm.tokens < 500 + 2 * 120 and record.llm.max_tokens_per_run == 500


HOSTILE = """import sys
# writes results.json and model/model.joblib, it says
shell = __import__("sub" + "process")
for path in [{store!r}, {secret!r}]:
    try:
        print("READ", path, len(open(path, "rb").read()))
    except OSError as exc:
        print("DENIED", path, type(exc).__name__)
try:
    shell.run(["sh", "-c", "echo SHELL_$((40 + 2))"])
except Exception as exc:
    print("NO SHELL:", exc)
while True:
    sys.stdout.write("spam " * 20000 + "\\n")
"""


def test_a_hostile_script_is_contained_recorded_and_the_next_attempt_runs(run_cli, small_churn, monkeypatch, workdir,
                                                                         tmp_path):
    """Code from a model that slips past the static checks: the sandbox contains it, the run says why, the error
    goes back to the model, and its next attempt trains the model."""
    from automl_agent.sandbox import bubblewrap

    secret = tmp_path / "home" / ".kaggle" / "kaggle.json"
    secret.parent.mkdir(parents=True)
    secret.write_text('{"key": "KAGGLE-KEY-MATERIAL"}')
    monkeypatch.setenv("HOME", str(secret.parent.parent))
    hostile = HOSTILE.format(store=str(workdir / "mlflow.db"), secret=str(secret))

    def model(body: dict) -> str:
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if "Task skeleton" not in first_user:
            return "{}"
        if "printed more than" not in first_user:
            return json.dumps({"source": hostile, "notes": "first try"})
        return json.dumps({"edits": [{"find": "'cv_folds': 3", "replace": "'cv_folds': 2"}], "notes": "calmer"})

    with ChatServer([], route=model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code, record, err = run_cli("run", INSTRUCTION, "--data", str(small_churn), "--budget", "5", "--plans", "1",
                                    "--llm", "openai:local-coder", "--code-attempts", "2")
    assert code == 0, err
    assert record.status == "succeeded" and Path(record.script_path).name == "train_v1_a2.py"
    log = (workdir / "runs" / record.run_id / "attempt_v1" / "train_v1.log").read_text()
    assert "DENIED" in log and "READ" not in log.replace('print("READ"', "")
    assert "SHELL_42" not in log and "NO SHELL" in log and "[sandbox] printed more than 64 MB" in log
    assert (workdir / "runs" / record.run_id / "attempt_v1" / "train_v1.log").stat().st_size < 65 * 2**20
    if not bubblewrap.unavailable_reason():
        assert record.sandbox.startswith("bubblewrap")
    else:
        assert record.sandbox.startswith("guard only")


def _today_model(schema, body):
    """A model that answers the manager's checks and the plan decompositions sensibly and nothing else validly."""
    props = set((schema or {}).get("properties", {}))
    instructions = body["messages"][0]["content"]
    if {"relevant", "adequate"} <= props:
        return json.dumps({"relevant": True, "adequate": True, "feedback": None})
    if {"approve", "reason"} <= props:
        return json.dumps({"approve": True, "reason": "the delivered model meets the requirements"})
    if {"passed", "best_plan_id", "reason"} == props:  # the plans it was shown all pass; the first is the best
        ids = [int(i) for i in re.findall(r'"plan_id": ?(\d+)', body["messages"][-1]["content"])]
        return json.dumps({"passed": sorted(set(ids)), "best_plan_id": ids[0], "reason": "both meet the spec"})
    if {"agent", "subtasks"} == props:
        agent = "data" if instructions.startswith("You are the data scientist") else "model"
        return json.dumps({"agent": agent, "subtasks": ["profile the columns", "train and compare candidates"]})
    return '{"unparseable": true}'


def test_todays_models_reasoning_and_classic_answer_without_a_refused_request(run_cli, small_churn, monkeypatch,
                                                                                 workdir):
    """The manager on a reasoning model (gpt-5-mini), the other agents on a classic one (gpt-4.1-mini), behind a
    server that enforces OpenAI's parameter rules: no request is refused, both answer steps, and the record and the
    summary say how many steps each side answered and why the rules stood in for the others."""
    from tests.openai_rules_server import OpenAIRulesServer

    # the team edited one prompt in the registry and put it under @production: this run uses it, not the packaged text
    point_mlflow_at(f"sqlite:///{workdir / 'mlflow.db'}")
    packaged = (Path(prompt_registry.PROMPTS_DIR) / "manager.verify_request.txt").read_text()
    edited = mlflow.genai.register_prompt("automl-agent.manager.verify_request", "TEAM-EDIT-7: " + packaged)
    mlflow.genai.set_prompt_alias("automl-agent.manager.verify_request", alias="production", version=edited.version)
    with OpenAIRulesServer({"gpt-5-mini": "reasoning", "gpt-4.1-mini": "classic"}, answer=_today_model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        code, record, err = run_cli("run", INSTRUCTION, "--data", str(small_churn), "--budget", "5", "--plans", "2",
                                    "--llm", "openai:gpt-4.1-mini", "--llm-agent", "manager=openai:gpt-5-mini",
                                    "--reasoning-effort", "low")
    assert code == 0, err
    assert server.refused == []
    manager_requests = [r for r in server.requests if r["model"] == "gpt-5-mini"]
    assert manager_requests and all("temperature" not in r and r["reasoning_effort"] == "low" for r in manager_requests)
    calls = [json.loads(f.read_text()) for f in (workdir / "runs" / record.run_id / "calls").glob("*.json")]
    answered_by = {backend: sum(1 for c in calls if c["brain"] == backend and not c["fallback"])
                   for backend in ("openai:gpt-5-mini", "openai:gpt-4.1-mini")}
    assert answered_by["openai:gpt-5-mini"] >= 3 and answered_by["openai:gpt-4.1-mini"] >= 3, answered_by
    llm = record.llm
    assert llm.llm_answered == sum(answered_by.values()) and llm.rules_answered >= 1 and llm.reasoning_tokens > 0
    assert "no valid answer" in llm.offline_fallbacks[0] and llm.server_adjustments == []
    assert f"{llm.llm_answered} steps answered by the LLM, {llm.rules_answered} by the offline rules" in err

    verify_requests = [r for r in manager_requests if "TEAM-EDIT-7" in json.dumps(r["messages"])]
    assert len(verify_requests) == 1, (record.mlflow_tracking_uri, llm.prompt_versions, llm.prompt_aliases, record.warnings)  # the edited prompt was sent (and only on its own step)
    name = "automl-agent.manager.verify_request"
    assert llm.prompt_versions[name] == str(edited.version) and llm.prompt_aliases == {name: "production"}
    verify_call = next(c for c in calls if c["step"] == "manager.verify_request")
    assert f"{name}/{edited.version}" in verify_call["prompt_versions"]
    assert MlflowClient(record.mlflow_tracking_uri).get_run(record.mlflow_run_id).data.tags[f"prompt.{name}"] == str(edited.version)
