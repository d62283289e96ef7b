"""The served model's parts without a server: the payload check, the adaptive batcher and the request guard."""

from __future__ import annotations

import asyncio
import json
import math
import threading

import pytest

from automl_agent.serving.batching import AdaptiveBatcher
from automl_agent.serving.middleware import RequestGuard
from automl_agent.serving.payload import MAX_RECORDS, PayloadError, check_records, records_frame
from tests.local_http import read_body

SCHEMA = {
    "task": "tabular_classification", "target": "churn",
    "columns": [
        {"name": "tenure", "type": "number", "min": 0, "max": 72, "median": 29, "integer": True},
        {"name": "contract", "type": "category", "levels": ["Month-to-month", "One year"], "mode": "Month-to-month"},
        {"name": "note", "type": "text", "max_length": 40},
    ],
}
ROW = {"tenure": 12, "contract": "One year", "note": "called twice"}


def test_a_valid_record_passes_and_becomes_the_training_dtypes():
    records = check_records([ROW, dict(ROW, tenure=None)], SCHEMA)
    frame = records_frame(records, SCHEMA)
    assert list(frame.columns) == ["tenure", "contract", "note"]
    assert math.isnan(frame["tenure"][1]) and frame["contract"][0] == "One year"


def test_the_target_column_may_come_along():
    check_records([dict(ROW, churn="Yes")], SCHEMA)


@pytest.mark.parametrize("records, message", [
    ([], "non-empty list"),
    ({"tenure": 1}, "non-empty list"),
    (["tenure=1"], "record 0 is not an object"),
    ([{"tenure": 1}], "lacks columns ['contract', 'note']"),
    ([dict(ROW, extra=1)], "unknown columns ['extra']"),
    ([dict(ROW, tenure="twelve")], "column 'tenure' must be a finite number"),
    ([dict(ROW, tenure=True)], "column 'tenure' must be a finite number"),
    ([dict(ROW, tenure=float("inf"))], "column 'tenure' must be a finite number"),
    ([dict(ROW, contract=["One year"])], "column 'contract' must be a category"),
    ([dict(ROW, note={"text": "hi"})], "column 'note' must be text"),
    ([ROW] * (MAX_RECORDS + 1), f"at most {MAX_RECORDS} records"),
])
def test_bad_payloads_say_what_is_wrong(records, message):
    with pytest.raises(PayloadError, match=None) as caught:
        check_records(records, SCHEMA)
    assert message in str(caught.value)


def test_nan_is_read_as_missing():
    frame = records_frame(check_records([dict(ROW, tenure=float("nan"))], SCHEMA), SCHEMA)
    assert math.isnan(frame["tenure"][0])


class CountingModel:
    """Predicts tenure * 2; records how many calls it got and how big they were; refuses tenure == 13."""

    def __init__(self):
        self.calls: list[int] = []
        self.gate = threading.Event()

    def __call__(self, records):
        self.gate.wait(5)
        self.calls.append(len(records))
        if any(r["tenure"] == 13 for r in records):
            raise ValueError("unlucky tenure 13")
        return [r["tenure"] * 2 for r in records]


def test_requests_that_arrive_together_are_answered_by_one_model_call():
    model = CountingModel()
    batcher = AdaptiveBatcher(model)

    async def scenario():
        first = asyncio.create_task(batcher.predict([dict(ROW, tenure=1)]))
        await asyncio.sleep(0.05)  # the first request is with the model; the rest queue up meanwhile
        rest = [asyncio.create_task(batcher.predict([dict(ROW, tenure=t), dict(ROW, tenure=t + 100)]))
                for t in range(2, 12)]
        await asyncio.sleep(0.05)
        model.gate.set()
        return await first, await asyncio.gather(*rest)

    first, rest = asyncio.run(scenario())
    assert first == [2] and rest[0] == [4, 204] and rest[-1] == [22, 222]
    assert model.calls == [1, 20]  # the ten queued requests went as one batch of 20 records


def test_a_request_the_model_refuses_fails_alone():
    model = CountingModel()
    model.gate.set()
    batcher = AdaptiveBatcher(model)

    async def scenario():
        tasks = [asyncio.create_task(batcher.predict([dict(ROW, tenure=t)])) for t in (11, 12, 13, 14)]
        return await asyncio.gather(*tasks, return_exceptions=True)

    answers = asyncio.run(scenario())
    assert answers[0] == [22] and answers[1] == [24] and answers[3] == [28]
    assert isinstance(answers[2], ValueError) and "unlucky" in str(answers[2])


def test_an_idle_batcher_adds_no_wait():
    model = CountingModel()
    model.gate.set()
    batcher = AdaptiveBatcher(model)

    async def one_at_a_time():
        return [await batcher.predict([dict(ROW, tenure=t)]) for t in range(5)]

    assert asyncio.run(one_at_a_time()) == [[0], [2], [4], [6], [8]] and model.calls == [1] * 5


async def _echo_app(scope, receive, send):
    body = await read_body(receive)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": str(len(body)).encode()})


def _call(guard: RequestGuard, path: str = "/predict", headers: dict[str, str] | None = None,
          chunks: tuple[bytes, ...] = (b"{}",)) -> tuple[int, bytes]:
    sent: list[dict] = []
    pending = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]

    async def receive():
        return pending.pop(0)

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "path": path,
             "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]}
    asyncio.run(guard(scope, receive, send))
    return sent[0]["status"], sent[1]["body"]


def test_without_a_key_configured_requests_pass():
    assert _call(RequestGuard(_echo_app, api_key="")) == (200, b"2")


def test_a_key_is_required_when_configured():
    guard = RequestGuard(_echo_app, api_key="s3cret")
    status, body = _call(guard)
    assert status == 401 and "Authorization: Bearer" in json.loads(body)["error"]
    assert _call(guard, headers={"Authorization": "Bearer wrong"})[0] == 401
    assert _call(guard, headers={"Authorization": "Bearer s3cret"})[0] == 200
    assert _call(guard, headers={"X-API-Key": "s3cret"})[0] == 200
    assert _call(guard, path="/readyz")[0] == 200  # probes stay open


def test_the_key_is_read_from_the_servers_environment(monkeypatch):
    monkeypatch.setenv("AUTOML_AGENT_API_KEY", "from-env")
    assert _call(RequestGuard(_echo_app))[0] == 401


def test_oversized_requests_get_413_whether_declared_or_streamed():
    guard = RequestGuard(_echo_app, max_request_mb=0.001, api_key="")  # about 1 KB
    status, body = _call(guard, headers={"content-length": "5000"})
    assert status == 413 and "limit is 0.001 MB" in json.loads(body)["error"]
    status, _ = _call(guard, chunks=(b"x" * 600, b"x" * 600))  # chunked, no length declared
    assert status == 413
    assert _call(guard, chunks=(b"x" * 500,))[0] == 200
