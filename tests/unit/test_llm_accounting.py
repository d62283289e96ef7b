"""Pricing, per-agent routing, the token budget and the grammar bounds of the LLM brain."""

import pytest

from automl_agent.agents.brains.base import AgentStep, RecordingBrain, RoutedBrain, TokenBudgetExceeded, Transcript
from automl_agent.agents.brains.factory import parse_agent_specs, validate_spec
from automl_agent.agents.brains.llm import FallbackBrain, LLMBrain, bound_strings
from automl_agent.agents.brains.offline import OfflineBrain
from automl_agent.agents.brains.pricing import cost_usd, reference_cost_usd
from automl_agent.agents.contracts import GeneratedScript, RequestVerdict
from automl_agent.errors import UserFacingError
from tests.chat_server import ChatServer

REQUEST = AgentStep("manager.verify_request", RequestVerdict,
                    {"instruction": "Predict churn", "data_summary": {"columns": ["churn", "tenure"]}})
GOOD = '{"relevant": true, "adequate": true, "feedback": ""}'


def test_prices_come_from_the_table_local_backends_are_free_unknown_models_are_unknown(monkeypatch):
    assert cost_usd("openai:gpt-4o", 1_000_000, 100_000) == pytest.approx(2.50 + 1.00)
    assert cost_usd("gguf:gemma-3-270m", 10_000, 1_000) == 0.0 and cost_usd("offline", 5, 5) == 0.0
    assert cost_usd("openai:my-vllm-model", 1000, 1000) is None
    monkeypatch.setenv("AUTOML_AGENT_PRICES", '{"my-vllm-model": [1.0, 2.0]}')
    assert cost_usd("openai:my-vllm-model", 1_000_000, 1_000_000) == pytest.approx(3.0)
    assert reference_cost_usd(1_000_000, 0) == pytest.approx(2.50)


def test_grammar_bounds_cap_free_text_and_lists_but_not_code():
    bounded = bound_strings(GeneratedScript.model_json_schema(), 300)
    assert "maxLength" not in bounded["properties"]["source"] and bounded["properties"]["notes"]["maxLength"] == 300
    from automl_agent.agents.contracts import PlanSet
    plans = bound_strings(PlanSet.model_json_schema(), 300)
    assert plans["properties"]["plans"]["maxItems"] == 12


def test_each_agent_can_have_its_own_brain_and_calls_are_priced_per_backend():
    with ChatServer([], route=lambda body: GOOD) as server:
        cheap = LLMBrain("gpt-4o-mini", base_url=server.base_url, api_key="x", max_retries=0)
        strong = LLMBrain("gpt-4o", base_url=server.base_url, api_key="x", max_retries=0)
        transcript = Transcript()
        brain = RecordingBrain(RoutedBrain(strong, {"manager": cheap}), transcript)
        brain.answer(REQUEST)
        brain.answer(REQUEST)
    assert [r.brain for r in transcript.records] == ["openai:gpt-4o-mini", "openai:gpt-4o-mini"]
    assert transcript.records[0].cost_usd == pytest.approx((100 * 0.15 + 20 * 0.60) / 1e6)
    assert brain.backend_for(AgentStep("operation.write_script", GeneratedScript, {})) == "openai:gpt-4o"
    assert "manager=openai:gpt-4o-mini" in RoutedBrain(strong, {"manager": cheap}).name


def test_the_token_budget_stops_the_run_before_the_next_step():
    with ChatServer([], route=lambda body: GOOD) as server:
        transcript = Transcript()
        brain = RecordingBrain(LLMBrain("m", base_url=server.base_url, api_key="x", max_retries=0), transcript, max_tokens=200)
        brain.answer(REQUEST)  # 120 tokens
        brain.answer(REQUEST)  # 240: over budget from now on
        with pytest.raises(TokenBudgetExceeded, match="240 LLM tokens, its limit is 200") as caught:
            brain.answer(REQUEST)
    assert caught.value.status == "failed" and len(transcript.records) == 2


def test_tokens_spent_on_a_failed_step_still_count():
    with ChatServer([], route=lambda body: '{"relevant": "maybe"}') as server:
        guarded = FallbackBrain(LLMBrain("m", base_url=server.base_url, api_key="x", max_retries=0), OfflineBrain())
        verdict, usage = guarded.answer(REQUEST)
    assert verdict.relevant and (usage.prompt_tokens, usage.completion_tokens) == (200, 40)


@pytest.mark.parametrize("items, problem", [
    (["planner=openai:gpt-4o"], "AGENT=SPEC"), (["manager"], "AGENT=SPEC"), (["manager=nonsense:x"], "unknown --llm"),
    (["manager=gguf:/no/such/model.gguf"], "not found"),
])
def test_per_agent_specs_are_validated_with_clear_errors(items, problem):
    with pytest.raises(UserFacingError, match=problem):
        parse_agent_specs(items)


def test_brain_specs_are_checked_without_starting_anything():
    validate_spec("offline")
    validate_spec("openai:gpt-4o")
    for bad in ("openai", "gguf", "claude:x"):
        with pytest.raises(UserFacingError):
            validate_spec(bad)
