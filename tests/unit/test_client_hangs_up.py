"""A client that hangs up stops costing the others: on a real uvicorn server (127.0.0.1), a request that waits in the
adaptive batch while the model is busy, and whose client then closes its socket, is never predicted."""

from __future__ import annotations

import json
import socket
import threading
import time
from contextlib import contextmanager

import httpx
import uvicorn

from automl_agent.serving.batching import AdaptiveBatcher
from automl_agent.serving.disconnect import StopWhenClientLeaves
from tests.local_http import read_body


class GatedModel:
    """Predicts 2 * x for each record, once `gate` is set; records what each call was given."""

    def __init__(self):
        self.gate = threading.Event()
        self.started = threading.Event()
        self.calls: list[list[int]] = []

    def __call__(self, records):
        self.started.set()
        self.gate.wait(timeout=30)
        self.calls.append([r["x"] for r in records])
        return [2 * r["x"] for r in records]


def _app(batcher: AdaptiveBatcher):
    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        answer = await batcher.predict(json.loads(await read_body(receive))["records"])
        data = json.dumps({"predictions": answer}).encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})
    return app


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


@contextmanager
def _served(app):
    """A real uvicorn server on 127.0.0.1 for the block; stopped, and its thread joined, after it."""
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        assert _wait_for(lambda: server.started)
        yield port
    finally:
        server.should_exit = True
        thread.join(10)
    assert not thread.is_alive()


def _raw_request(port: int, records: list[dict]) -> socket.socket:
    body = json.dumps({"records": records}).encode()
    client = socket.create_connection(("127.0.0.1", port))
    client.sendall(b"POST /predict HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    return client


def test_a_waiting_request_whose_client_hangs_up_is_never_predicted():
    model = GatedModel()
    batcher = AdaptiveBatcher(model)
    abandoned: list[int] = []
    app = StopWhenClientLeaves(_app(batcher), on_abandoned=lambda: abandoned.append(1))
    with _served(app) as port:
        polite: dict = {}
        first = threading.Thread(target=lambda: polite.update(
            answer=httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"x": 1}]}, timeout=30).json()))
        first.start()
        assert model.started.wait(10)  # the model is busy with the polite request
        rude = _raw_request(port, [{"x": 100 + i} for i in range(50)])
        time.sleep(0.3)  # its request is read and waits in the batch queue
        rude.close()
        assert _wait_for(lambda: abandoned == [1]), "the server did not notice the client leaving"
        second = httpx.Client(timeout=30)
        later: dict = {}
        third = threading.Thread(target=lambda: later.update(
            answer=second.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"x": 3}]}).json()))
        third.start()
        time.sleep(0.2)
        model.gate.set()
        first.join(30)
        third.join(30)
        second.close()
        assert polite["answer"] == {"predictions": [2]}
        assert later["answer"] == {"predictions": [6]}
        assert model.calls == [[1], [3]]  # the fifty records of the client that left were never predicted


def test_a_client_that_stays_gets_its_answer_and_nothing_counts_as_abandoned():
    model = GatedModel()
    model.gate.set()
    abandoned: list[int] = []
    app = StopWhenClientLeaves(_app(AdaptiveBatcher(model)), on_abandoned=lambda: abandoned.append(1))
    with _served(app) as port:
        with httpx.Client(timeout=30) as client:  # kept alive: the connection outlives each answer
            answers = [client.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"x": x}]}).json()
                       for x in range(3)]
        assert answers == [{"predictions": [0]}, {"predictions": [2]}, {"predictions": [4]}]
        time.sleep(0.2)
        assert abandoned == []  # closing a connection after its answers is not hanging up on one
