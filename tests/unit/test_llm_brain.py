import json

import pytest

from automl_agent.agents.brains.base import AgentStep, RecordingBrain, Transcript
from automl_agent.agents.brains.llm import FallbackBrain, LLMBrain, LLMStepError
from automl_agent.agents.brains.offline import OfflineBrain
from automl_agent.agents.contracts import RequestVerdict
from tests.chat_server import ChatServer

STEP = AgentStep("manager.verify_request", RequestVerdict,
                 {"instruction": "Predict customer churn from this table", "data_summary": {"columns": ["churn"]}})
GOOD = json.dumps({"relevant": True, "adequate": True, "feedback": ""})


def test_structured_answer_with_json_schema_and_token_accounting():
    with ChatServer([GOOD]) as server:
        brain = RecordingBrain(LLMBrain("tiny", base_url=server.base_url, api_key="x"), Transcript())
        verdict = brain.answer(STEP)
        sent = server.requests[0]
    assert verdict.ok
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["name"] == "RequestVerdict"
    assert sent["response_format"]["json_schema"]["strict"] is True  # the contract passes strict mode
    assert sent["response_format"]["json_schema"]["schema"]["required"] == ["relevant", "adequate", "feedback"]
    assert "Predict customer churn" in sent["messages"][1]["content"]
    assert brain.transcript.totals() == {"calls": 1, "prompt_tokens": 100, "completion_tokens": 20,
                                         "repair_prompt_tokens": 0, "repair_completion_tokens": 0, "reasoning_tokens": 0}


def test_falls_back_to_json_mode_and_repairs_once():
    with ChatServer(["not json at all", "```json\n" + GOOD + "\n```"], refuse_json_schema=True) as server:
        brain = LLMBrain("tiny", base_url=server.base_url, api_key="x", max_retries=0)
        verdict, usage = brain.answer(STEP)
        formats = [r["response_format"]["type"] for r in server.requests]
    assert verdict.ok
    assert formats == ["json_schema", "json_object", "json_object"]
    assert "does not match the schema" in server.requests[-1]["messages"][-1]["content"]
    assert usage.prompt_tokens == 200 and usage.repair_prompt_tokens == 100  # the second call was the repair round


def test_transient_errors_are_retried():
    with ChatServer([GOOD], fail_first_with=503) as server:
        verdict, _ = LLMBrain("tiny", base_url=server.base_url, api_key="x", max_retries=2).answer(STEP)
    assert verdict.ok and len(server.requests) == 2


def test_a_step_that_stays_invalid_fails_clearly_and_the_offline_rules_answer():
    with ChatServer(['{"relevant": "maybe"}', '{"still": "wrong"}']) as server:
        llm = LLMBrain("tiny", base_url=server.base_url, api_key="x", max_retries=0)
        with pytest.raises(LLMStepError, match="manager.verify_request"):
            llm.answer(STEP)
    with ChatServer(['{"relevant": "maybe"}', '{"still": "wrong"}']) as server:
        guarded = FallbackBrain(LLMBrain("tiny", base_url=server.base_url, api_key="x", max_retries=0), OfflineBrain())
        verdict, usage = guarded.answer(STEP)
    assert verdict.ok and guarded.fallbacks
    assert (usage.prompt_tokens, usage.repair_prompt_tokens) == (200, 100)  # both failed tries count; one was a repair


def test_an_answer_cut_off_at_the_token_limit_is_not_echoed_back_in_the_repair_round():
    with ChatServer([('{"relevant": true, "ok": tr', "length"), GOOD]) as server:
        verdict, usage = LLMBrain("tiny", base_url=server.base_url, api_key="x", max_retries=0).answer(STEP)
    assert verdict.ok and usage.repair_prompt_tokens == 100
    repair = server.requests[1]["messages"]
    assert [m["role"] for m in repair] == ["system", "user", "user"] and "cut off" in repair[-1]["content"]
    with ChatServer(['{"relevant": "maybe"}', GOOD]) as server:  # a complete but invalid answer is shown back
        LLMBrain("tiny", base_url=server.base_url, api_key="x", max_retries=0).answer(STEP)
    assert [m["role"] for m in server.requests[1]["messages"]] == ["system", "user", "assistant", "user"]
