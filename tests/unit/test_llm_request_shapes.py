"""Today's request shapes against a local server that enforces OpenAI's documented parameter rules (real HTTP):
reasoning and classic models, strict structured outputs, servers without them, Azure deployments, a bad key, an
unknown model, `--llm-strict`, `llm check`, and the cost of reasoning tokens."""

import json

import pytest
from pydantic import BaseModel

from automl_agent.agents import contracts
from automl_agent.agents.brains.base import AgentStep, RecordingBrain, Transcript
from automl_agent.agents.brains.llm import FallbackBrain, LLMBrain, LLMUnavailable
from automl_agent.agents.brains.offline import OfflineBrain
from automl_agent.agents.brains.pricing import cost_usd
from automl_agent.agents.brains.request_shapes import drop_added_nulls, is_reasoning_model, strict_schema
from automl_agent.errors import UserFacingError
from tests.openai_rules_server import OpenAIRulesServer, strict_problems

VERIFY = AgentStep("manager.verify_request", contracts.RequestVerdict,
                   {"instruction": "Predict customer churn from this table", "data_summary": {"columns": ["churn"]}})
OPINION = AgentStep("manager.verify_implementation", contracts.ManagerOpinion,
                    {"spec": {}, "results": {}, "checks": []})


def answers(schema, body):
    """A model that answers the two manager steps sensibly, in whichever response format it was asked."""
    props = set((schema or {}).get("properties", {}))
    if {"relevant", "adequate"} <= props:
        return json.dumps({"relevant": True, "adequate": True, "feedback": None})  # strict mode: optional -> null
    if {"approve", "reason"} <= props:
        return json.dumps({"approve": True, "reason": "meets the spec"})
    return None


def _brain(server, model, **kw):
    return LLMBrain(model, base_url=server.base_url, api_key="sk-test", max_retries=0, preflight=True, **kw)


@pytest.mark.parametrize("model,reasoning", [("gpt-5-mini", True), ("o4-mini", True), ("gpt-4.1-mini", False)])
def test_each_family_gets_its_documented_shape_and_nothing_is_refused(model, reasoning):
    with OpenAIRulesServer({model: "reasoning" if reasoning else "classic"}, answer=answers) as server:
        brain = RecordingBrain(_brain(server, model, max_tokens=400, temperature=0.2), Transcript())
        assert brain.answer(VERIFY).ok and brain.answer(OPINION).approve
    assert server.refused == []
    step_request = server.requests[-1]
    assert ("temperature" in step_request) is not reasoning
    assert step_request["max_completion_tokens"] == 400 and "max_tokens" not in step_request
    assert step_request["messages"][0]["role"] == ("developer" if reasoning else "system")
    assert step_request["response_format"]["json_schema"]["strict"] is True
    records = brain.transcript.all_records()
    assert all(not r.fallback for r in records)
    if reasoning:  # the preflight's tokens count on the first step; reasoning tokens are recorded and priced
        assert records[0].reasoning_tokens == 2 * 64 and records[0].served_model.startswith(model)
        assert records[0].cost_usd == pytest.approx(cost_usd(f"openai:{model}", records[0].prompt_tokens,
                                                             records[0].completion_tokens))


def test_a_refused_parameter_is_learned_once_and_not_sent_again():
    """A deployment name hides the model family: the 400 names the parameter; it is dropped, remembered, and the
    next steps are not refused again."""
    with OpenAIRulesServer({"gpt-5-mini": "reasoning"}, answer=answers) as server:
        brain = _brain(server, "gpt-5-mini")
        brain.profile = type(brain.profile).for_model("team-brain")  # what a name without a family gets
        brain.profile.model = "team-brain"
        recorded = RecordingBrain(brain, Transcript())
        recorded.answer(VERIFY)
        recorded.answer(OPINION)
        recorded.answer(VERIFY)
    assert len(server.refused) == 1 and "temperature" in server.refused[0][1]
    assert brain.profile.learned == ["team-brain rejected temperature=0.0; sent without it"]
    assert recorded.transcript.learned() == brain.profile.learned


def test_reasoning_effort_goes_to_reasoning_models_and_an_unknown_model_that_refuses_it_is_asked_without():
    with OpenAIRulesServer({"gpt-5-mini": "reasoning", "gpt-4.1-mini": "classic", "team-model": "classic"},
                           answer=answers) as server:
        _brain(server, "gpt-5-mini", reasoning_effort="low").answer(VERIFY)
        assert server.requests[-1]["reasoning_effort"] == "low" and not server.refused
        _brain(server, "gpt-4.1-mini", reasoning_effort="low").answer(VERIFY)  # a known classic model: not sent
        assert "reasoning_effort" not in server.requests[-1] and not server.refused
        unknown = _brain(server, "team-model", reasoning_effort="low")
        unknown.answer(VERIFY)
        unknown.answer(OPINION)
    assert [code for code, _ in server.refused] == [400]
    assert "reasoning_effort" not in server.requests[-1]


def test_a_server_without_schema_outputs_falls_back_to_json_mode_once_for_the_whole_run():
    with OpenAIRulesServer({"qwen2.5": "classic"}, structured="none", answer=answers) as server:
        brain = _brain(server, "qwen2.5")
        brain.answer(VERIFY)
        brain.answer(OPINION)
        brain.answer(VERIFY)
    assert len(server.refused) == 1
    assert [r.get("response_format", {}).get("type") for r in server.requests] == [
        "json_schema", "json_object", "json_object", "json_object", "json_object"]


def test_every_contract_is_sent_strict_or_says_why_not():
    """Strict mode needs every property required and no open object; optional fields become nullable and an answer's
    nulls fall back to the contract's defaults."""
    sent_strict = 0
    for name in ("RequestVerdict", "RequirementSpec", "PlanSet", "ExecutionVerdict", "ManagerOpinion",
                 "DecomposedPlan", "ModelProposal", "DataAnalysis", "GeneratedScript"):
        model: type[BaseModel] = getattr(contracts, name)
        strict = strict_schema(model.model_json_schema())
        if strict is None:  # a free-form dict (hyperparameters, dropped columns): sent as a plain JSON schema
            assert '"additionalProperties": true' in json.dumps(model.model_json_schema()) or \
                   '"additionalProperties": {' in json.dumps(model.model_json_schema())
            continue
        sent_strict += 1
        assert strict_problems(strict) == [], name
    assert sent_strict >= 6
    schema = contracts.RequestVerdict.model_json_schema()
    assert contracts.RequestVerdict.model_validate(
        drop_added_nulls({"relevant": True, "adequate": False, "feedback": None}, schema)).feedback == ""


def test_a_bad_key_or_an_unknown_model_stops_at_the_first_step_with_a_clear_message():
    with OpenAIRulesServer({"gpt-4.1-mini": "classic"}, api_key="sk-right") as server:
        with pytest.raises(LLMUnavailable, match="refused the API key") as bad_key:
            FallbackBrain(_brain(server, "gpt-4.1-mini"), OfflineBrain()).answer(VERIFY)
        with pytest.raises(LLMUnavailable, match="no model 'gpt-9'"):
            FallbackBrain(LLMBrain("gpt-9", base_url=server.base_url, api_key="sk-right", preflight=True),
                          OfflineBrain()).answer(VERIFY)
    assert "OPENAI_API_KEY" in bad_key.value.hint and bad_key.value.status == "failed"


def test_a_fallback_is_counted_with_its_reason_and_llm_strict_makes_it_an_error():
    with OpenAIRulesServer({"gpt-4.1-mini": "classic"}, answer=lambda schema, body: '{"relevant": "maybe"}') as server:
        lenient = FallbackBrain(_brain(server, "gpt-4.1-mini"), OfflineBrain())
        recorded = RecordingBrain(lenient, Transcript())
        assert recorded.answer(VERIFY).ok  # the offline rules answered
        assert "manager.verify_request" in recorded.transcript.all_records()[0].fallback
        strict = FallbackBrain(_brain(server, "gpt-4.1-mini"), OfflineBrain(), strict=True)
        with pytest.raises(UserFacingError, match="--llm-strict: manager.verify_request"):
            strict.answer(VERIFY)


def test_azure_deployment_priced_by_the_model_behind_it(monkeypatch):
    from automl_agent.agents.brains.factory import make_brain

    with OpenAIRulesServer({"gpt-5-mini": "reasoning"}, answer=answers, deployments={"team-brain": "gpt-5-mini"},
                           api_key="azure-key") as server:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.endpoint)
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-key")
        brain = RecordingBrain(make_brain("azure:team-brain"), Transcript())
        assert brain.answer(VERIFY).ok
    record = brain.transcript.all_records()[0]
    assert len(server.refused) == 1 and "temperature" in server.refused[0][1]  # learned from the 400, once
    assert record.served_model == "gpt-5-mini-2025-08-07" and record.cost_usd and record.cost_usd > 0


def test_llm_check_reports_what_works_and_fails_clearly(monkeypatch, capsys):
    from automl_agent.cli.app import main

    with OpenAIRulesServer({"gpt-5-mini": "reasoning"}) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        assert main(["llm", "check", "--llm", "openai:gpt-5-mini"]) == 0
        shown = capsys.readouterr().out
        assert "response format:        json_schema_strict" in shown and "64 reasoning" in shown and "OK" in shown
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
        assert main(["llm", "check", "--llm", "openai:gpt-5-mini"]) == 1
        assert "FAILED: the server refused the API key (401)" in capsys.readouterr().out


def test_model_families_by_name():
    assert all(map(is_reasoning_model, ["o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5-nano-2025-08-07"]))
    assert not any(map(is_reasoning_model, ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "llama3", "omni-7b"]))
    assert cost_usd("openai:gpt-5-mini", 1_000_000, 1_000_000) == pytest.approx(2.25)
    assert cost_usd("azure:anything", 1_000_000, 0, "gpt-4o-2024-08-06") == pytest.approx(2.5)


def test_a_prompt_edited_in_the_registry_is_used_by_alias_unless_it_names_inputs_the_step_lacks(tmp_path, monkeypatch):
    import mlflow

    from automl_agent import prompt_registry
    from automl_agent.settings import point_mlflow_at

    monkeypatch.chdir(tmp_path)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    point_mlflow_at(uri)
    packaged = (prompt_registry.PROMPTS_DIR / "manager.verify_request.txt").read_text()
    good = mlflow.genai.register_prompt("automl-agent.manager.verify_request", "Be brief. " + packaged)
    bad = mlflow.genai.register_prompt("automl-agent.manager.make_plans", "Plan for $customer_name")
    for prompt in (good, bad):
        mlflow.genai.set_prompt_alias(prompt.name, alias="production", version=prompt.version)
    versions, by_alias, warnings = prompt_registry.resolve_for_run(tmp_path, uri, tmp_path / "run")
    assert by_alias == {"automl-agent.manager.verify_request": "production"}
    assert (tmp_path / "run" / "prompts" / "manager.verify_request.txt").read_text().startswith("Be brief. ")
    assert len(warnings) == 1 and "$customer_name" in warnings[0] and "packaged text" in warnings[0]
    assert versions["automl-agent.manager.make_plans"] != str(bad.version)

    recorded = RecordingBrain(OfflineBrain(), Transcript(), prompts_dir=tmp_path / "run" / "prompts")
    recorded.answer(VERIFY)
    record = recorded.transcript.all_records()[0]
    assert record.prompt.startswith("Be brief. ")
    assert f"automl-agent.manager.verify_request/{good.version}" in record.prompt_versions
