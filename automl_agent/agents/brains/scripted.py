"""A scripted brain for tests: recorded answers per step, consumed in order; the offline rules answer the rest."""

from __future__ import annotations

from collections import defaultdict, deque
from typing import Any

from pydantic import BaseModel

from .base import AgentStep, Usage
from .offline import OfflineBrain


class ScriptedBrain:
    name = "scripted"

    def __init__(self, answers: dict[str, list[dict[str, Any]]]):
        self.answers = defaultdict(deque, {k: deque(v) for k, v in answers.items()})
        self.offline = OfflineBrain()
        self.used: list[str] = []

    def answer(self, step: AgentStep) -> tuple[BaseModel, Usage]:
        queue = self.answers.get(step.name)
        if queue:
            self.used.append(step.name)
            return step.output.model_validate(queue.popleft()), Usage()
        return self.offline.answer(step)
