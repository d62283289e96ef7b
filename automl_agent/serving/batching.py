"""Adaptive batching inside the service process: requests that arrive while the model is busy are answered together
by one call of the model. Idle, a request goes straight through (no waiting window); under load, batches grow with
the queue, up to a cap. Each request is checked on its own before it joins a batch, so one bad request never fails
the others, and a batch the model refuses is retried request by request so the error reaches only its sender.
A request whose sender hung up while it waited (its future cancelled, see serving.disconnect) is never predicted.

Why not BentoML's `batchable=True`: its batched API returns one list for the concatenated inputs, so the response
could not keep its shape ({"predictions", "task", "model"}) and validation would run on the whole batch."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

MAX_BATCH_RECORDS = 512


@dataclass
class _Pending:
    records: list[dict[str, Any]]
    future: asyncio.Future = field(repr=False)


class AdaptiveBatcher:
    """`predict_records(records) -> predictions` is the model's own call on a list of checked records."""

    def __init__(self, predict_records: Callable[[list[dict[str, Any]]], Sequence[Any]],
                 max_batch_records: int = MAX_BATCH_RECORDS):
        self._predict = predict_records
        self._max = max_batch_records
        self._queue: asyncio.Queue[_Pending] | None = None
        self._worker: asyncio.Task | None = None
        self.batches = 0
        self.requests = 0

    async def predict(self, records: list[dict[str, Any]]) -> list[Any]:
        if self._queue is None or self._worker is None or self._worker.done():
            self._queue = asyncio.Queue()
            self._worker = asyncio.get_running_loop().create_task(self._drain())
        pending = _Pending(records, asyncio.get_running_loop().create_future())
        self._queue.put_nowait(pending)
        return await pending.future

    async def _drain(self) -> None:
        assert self._queue is not None
        while True:
            batch: list[_Pending] = []
            size = 0
            while not batch or (size < self._max and not self._queue.empty()):
                pending = self._queue.get_nowait() if batch else await self._queue.get()
                if pending.future.done():  # cancelled: its sender hung up while it waited
                    continue
                batch.append(pending)
                size += len(pending.records)
            self.batches += 1
            self.requests += len(batch)
            try:
                answers = await asyncio.to_thread(self._answer, batch)
            except BaseException as exc:  # noqa: BLE001 - never leave a request waiting
                answers = [exc] * len(batch)
            for pending, answer in zip(batch, answers):
                if pending.future.done():
                    continue
                if isinstance(answer, BaseException):
                    pending.future.set_exception(answer)
                else:
                    pending.future.set_result(answer)

    def _answer(self, batch: list[_Pending]) -> list[Any]:
        """Predictions per request: one model call for the batch, or, if the model refuses it, one per request."""
        records = [r for pending in batch for r in pending.records]
        try:
            predictions = _as_list(self._predict(records))
        except Exception:  # noqa: BLE001 - find whose request it was
            if len(batch) == 1:
                raise
            return [self._one(pending.records) for pending in batch]
        answers, start = [], 0
        for pending in batch:
            answers.append(predictions[start:start + len(pending.records)])
            start += len(pending.records)
        return answers

    def _one(self, records: list[dict[str, Any]]) -> Any:
        try:
            return _as_list(self._predict(records))
        except Exception as exc:  # noqa: BLE001 - handed to this request's sender
            return exc


def _as_list(predictions: Any) -> list[Any]:
    return predictions.tolist() if hasattr(predictions, "tolist") else list(predictions)
