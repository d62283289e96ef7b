"""One code path, several brains: an agent step is a typed request that any brain answers."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"
Out = TypeVar("Out", bound=BaseModel)


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def render_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_jsonable(value), indent=2, default=str)


@dataclass
class AgentStep(Generic[Out]):
    """(prompt template, typed inputs) -> an instance of `output`."""

    name: str  # e.g. "manager.verify_request"; the template is prompts/<name>.txt
    output: type[Out]
    inputs: dict[str, Any]

    @property
    def agent(self) -> str:
        return self.name.split(".", 1)[0]

    def system_prompt(self) -> str:
        return (PROMPTS_DIR / f"system_{self.agent}.txt").read_text()

    def user_prompt(self) -> str:
        template = Template((PROMPTS_DIR / f"{self.name}.txt").read_text())
        return template.substitute({k: render_value(v) for k, v in self.inputs.items()})


@dataclass
class CallRecord:
    step: str
    brain: str
    system: str
    prompt: str
    answer: dict[str, Any]
    seconds: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    corrections: list[str] = field(default_factory=list)
    error: str = ""


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Brain(Protocol):
    name: str

    def answer(self, step: AgentStep[Out]) -> tuple[Out, Usage]: ...


class Transcript:
    """Every rendered prompt and its answer, in order, whatever the brain; thread-safe (plans run in parallel)."""

    def __init__(self) -> None:
        self.records: list[CallRecord] = []
        self._lock = threading.Lock()

    def add(self, record: CallRecord) -> None:
        with self._lock:
            self.records.append(record)

    def totals(self) -> dict[str, int]:
        with self._lock:
            return {
                "calls": len(self.records),
                "prompt_tokens": sum(r.prompt_tokens for r in self.records),
                "completion_tokens": sum(r.completion_tokens for r in self.records),
            }


class RecordingBrain:
    """Wraps a brain so each answer is validated against the contract and recorded with its rendered prompt."""

    def __init__(self, brain: Brain, transcript: Transcript):
        self.brain = brain
        self.transcript = transcript
        self.name = brain.name

    def answer(self, step: AgentStep[Out]) -> Out:
        started = time.perf_counter()
        result, usage = self.brain.answer(step)
        result = step.output.model_validate(result.model_dump())
        self.transcript.add(CallRecord(
            step=step.name, brain=self.brain.name, system=step.system_prompt(), prompt=step.user_prompt(),
            answer=result.model_dump(mode="json"), seconds=round(time.perf_counter() - started, 4),
            prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
        ))
        return result

    def note_corrections(self, step_name: str, corrections: list[str]) -> None:
        """Attach cross-check corrections to the latest record of a step."""
        with self.transcript._lock:
            for record in reversed(self.transcript.records):
                if record.step == step_name:
                    record.corrections.extend(corrections)
                    return
