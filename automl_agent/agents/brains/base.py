"""One code path, several brains: an agent step is a typed request that any brain answers."""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Callable, Generic, Protocol, TypeVar

from pydantic import BaseModel

from ...errors import UserFacingError
from .pricing import cost_usd

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"
PROMPT_PREFIX = "automl-agent"  # registry names: automl-agent.<template stem>
Out = TypeVar("Out", bound=BaseModel)


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):  # fields left at their defaults say nothing: leaving them out saves tokens
        return value.model_dump(mode="json", exclude_defaults=True)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def render_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_jsonable(value), default=str)  # one line: indentation costs prompt tokens, not meaning


@dataclass
class AgentStep(Generic[Out]):
    """(prompt template, typed inputs) -> an instance of `output`."""

    name: str  # e.g. "manager.verify_request"; the template is prompts/<name>.txt
    output: type[Out]
    inputs: dict[str, Any]
    # what the prompt shows for an input, when less than the whole object is needed (fewer tokens, same decision)
    views: dict[str, Any] = field(default_factory=dict)
    # where the templates are read: the run's resolved copies (registry versions under the team's alias) or the package
    prompts_dir: Path = PROMPTS_DIR

    @property
    def agent(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def template_files(self) -> tuple[str, str]:
        return f"system_{self.agent}.txt", f"{self.name}.txt"

    def system_prompt(self) -> str:
        return (self.prompts_dir / self.template_files[0]).read_text()

    def user_prompt(self) -> str:
        template = Template((self.prompts_dir / self.template_files[1]).read_text())
        return template.substitute({k: render_value(self.views.get(k, v)) for k, v in self.inputs.items()})


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
    repair_prompt_tokens: int = 0
    repair_completion_tokens: int = 0
    corrections: list[str] = field(default_factory=list)
    error: str = ""
    started_ns: int = 0
    cost_usd: float | None = 0.0
    fallback: str = ""  # why the offline rules answered this step instead of the LLM, if they did
    reasoning_tokens: int = 0
    served_model: str = ""
    learned: list[str] = field(default_factory=list)
    prompt_versions: list[str] = field(default_factory=list)  # "automl-agent.manager.verify_request/2", system's too


@dataclass
class Usage:
    """Tokens a step cost. The repair_* part (already inside the totals) went to repair rounds: what a model that
    answers validly at the first try would not spend."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    repair_prompt_tokens: int = 0
    repair_completion_tokens: int = 0
    fallback: str = ""
    reasoning_tokens: int = 0  # part of completion_tokens: what a reasoning model thought before answering
    served_model: str = ""  # the model the server says answered: prices an Azure deployment or a dated snapshot
    learned: list[str] = field(default_factory=list)  # parameters the server refused on this step, and what changed

    def plus(self, other: "Usage", repair: bool = False) -> "Usage":
        """Both usages together; `repair`: the other one was a repair round."""
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                     self.repair_prompt_tokens + (other.prompt_tokens if repair else other.repair_prompt_tokens),
                     self.repair_completion_tokens + (other.completion_tokens if repair else other.repair_completion_tokens),
                     self.fallback or other.fallback, self.reasoning_tokens + other.reasoning_tokens,
                     other.served_model or self.served_model, [*self.learned, *other.learned])


class Brain(Protocol):
    name: str

    def answer(self, step: AgentStep[Out]) -> tuple[Out, Usage]: ...


def backend_of(brain: Any, step: AgentStep) -> str:
    """The backend spec that answers this step (a routed brain picks one per agent)."""
    pick = getattr(brain, "backend_for", None)
    return pick(step) if pick else brain.name


class RoutedBrain:
    """Per-agent brains: e.g. a small model for parsing and verification, a strong one for planning and code."""

    def __init__(self, default: Brain, by_agent: dict[str, Brain]):
        self.default, self.by_agent = default, by_agent
        routes = ", ".join(f"{agent}={brain.name}" for agent, brain in sorted(by_agent.items()))
        self.name = f"{default.name} ({routes})" if routes else default.name

    def _pick(self, step: AgentStep) -> Brain:
        return self.by_agent.get(step.agent, self.default)

    def backend_for(self, step: AgentStep) -> str:
        return backend_of(self._pick(step), step)

    @property
    def fallbacks(self) -> list[str]:
        """Steps any of the routed LLMs could not answer validly (the offline rules answered them)."""
        found: list[str] = []
        for brain in self._distinct():
            found += [f for f in getattr(brain, "fallbacks", []) if f not in found]
        return found

    def _distinct(self) -> list[Brain]:
        """Each brain once, though several agents may share it."""
        return list({id(b): b for b in [self.default, *self.by_agent.values()]}.values())

    def answer(self, step: AgentStep[Out]) -> tuple[Out, Usage]:
        return self._pick(step).answer(step)

    def close(self) -> None:
        for brain in self._distinct():
            getattr(brain, "close", lambda: None)()


TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "repair_prompt_tokens", "repair_completion_tokens",
                "reasoning_tokens")


class Transcript:
    """Every rendered prompt and its answer, in order, whatever the brain; thread-safe (plans run in parallel).

    With a `store` folder each call is also written there as one JSON file the moment it is recorded, and the
    totals are read from that folder: stages that run in other processes or on other workers (a distributed task
    runner) add to the same transcript, and the run's token budget counts every call wherever it was made."""

    def __init__(self, store: Path | None = None) -> None:
        self.records: list[CallRecord] = []
        self.store = store
        self._files: dict[int, Path] = {}
        self._lock = threading.Lock()

    def add(self, record: CallRecord) -> None:
        with self._lock:
            self.records.append(record)
            self._write(record)

    def _write(self, record: CallRecord) -> None:
        if self.store is None:
            return
        self.store.mkdir(parents=True, exist_ok=True)
        path = self._files.setdefault(id(record), self.store / f"{record.started_ns}-{secrets.token_hex(4)}.json")
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(record), default=str))
        tmp.replace(path)

    def all_records(self) -> list[CallRecord]:
        """Every call of the run, from every process, in call order."""
        if self.store is None or not self.store.exists():
            with self._lock:
                return sorted(self.records, key=lambda r: r.started_ns)
        records = []
        for path in self.store.glob("*.json"):
            try:
                records.append(CallRecord(**json.loads(path.read_text())))
            except (ValueError, TypeError, OSError):
                continue
        return sorted(records, key=lambda r: r.started_ns)

    def totals(self) -> dict[str, int]:
        records = self.all_records()
        return {"calls": len(records), **{key: sum(getattr(r, key) for r in records) for key in TOKEN_FIELDS}}

    def tokens_used(self) -> int:
        totals = self.totals()
        return totals["prompt_tokens"] + totals["completion_tokens"]

    def by_step(self) -> dict[str, dict[str, Any]]:
        """Calls, tokens and cost per agent step, in first-call order."""
        summary: dict[str, dict[str, Any]] = {}
        for r in self.all_records():
            row = summary.setdefault(r.step, {"calls": 0, **dict.fromkeys(TOKEN_FIELDS, 0), "cost_usd": 0.0})
            row["calls"] += 1
            for key in TOKEN_FIELDS:
                row[key] += getattr(r, key)
            row["cost_usd"] = None if row["cost_usd"] is None or r.cost_usd is None else row["cost_usd"] + r.cost_usd
        return summary

    def fallbacks(self) -> list[str]:
        return [r.fallback for r in self.all_records() if r.fallback]

    def learned(self) -> list[str]:
        """What the LLM servers refused during the run and what was sent instead, each once, in order."""
        return list(dict.fromkeys(note for r in self.all_records() for note in r.learned))

    def note_corrections(self, step_name: str, corrections: list[str]) -> None:
        """Attach cross-check corrections to the latest record of a step made by this transcript."""
        with self._lock:
            for record in reversed(self.records):
                if record.step == step_name:
                    record.corrections.extend(corrections)
                    self._write(record)
                    return


class TokenBudgetExceeded(UserFacingError):
    """The run used its --max-tokens-per-run; it stops at the next agent step."""


class RecordingBrain:
    """Wraps a brain so each answer is validated against the contract, priced, and recorded with its rendered
    prompt; enforces the run's token budget before every step."""

    def __init__(self, brain: "Brain | Callable[[], Brain]", transcript: Transcript, max_tokens: int | None = None,
                 prompts_dir: Path | None = None):
        """`prompts_dir`: the run's resolved templates (prompt_registry.resolve_for_run), used when present."""
        self.prompts_dir = prompts_dir
        # a callable is called on the first step that needs a brain: a stage that asks no agent (the report) starts
        # no LLM server
        self._brain = brain if hasattr(brain, "answer") else None
        self._make = None if self._brain is not None else brain
        self.transcript = transcript
        self.max_tokens = max_tokens

    @property
    def brain(self) -> Brain:
        if self._brain is None:
            self._brain = self._make()
        return self._brain

    @property
    def name(self) -> str:
        return self.brain.name

    def answer(self, step: AgentStep[Out]) -> Out:
        used = self.transcript.tokens_used()
        if self.max_tokens is not None and used >= self.max_tokens:
            raise TokenBudgetExceeded(
                f"The run used {used} LLM tokens, its limit is {self.max_tokens} (--max-tokens-per-run); "
                f"it stopped before the step {step.name}.",
                "Raise --max-tokens-per-run, use fewer plans (--plans), or a cheaper brain for some agents (--llm-agent).",
                status="failed")
        versions = self._prompt_versions()
        if versions:
            step.prompts_dir = self.prompts_dir
        started, started_ns = time.perf_counter(), time.time_ns()
        result, usage = self.brain.answer(step)
        result = step.output.model_validate(result.model_dump())
        backend = backend_of(self.brain, step)
        self.transcript.add(CallRecord(
            step=step.name, brain=backend, system=step.system_prompt(), prompt=step.user_prompt(),
            answer=result.model_dump(mode="json"), seconds=round(time.perf_counter() - started, 4),
            prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens, started_ns=started_ns,
            repair_prompt_tokens=usage.repair_prompt_tokens, repair_completion_tokens=usage.repair_completion_tokens,
            cost_usd=cost_usd(backend, usage.prompt_tokens, usage.completion_tokens, usage.served_model),
            fallback=usage.fallback, reasoning_tokens=usage.reasoning_tokens, served_model=usage.served_model,
            learned=usage.learned, prompt_versions=[f"{name}/{versions[name]}" for name in (
                f"{PROMPT_PREFIX}.{Path(f).stem}" for f in step.template_files) if name in versions],
        ))
        return result

    def _prompt_versions(self) -> dict[str, str]:
        """{prompt name: version} of the run's resolved templates; empty when the run has none (tests, the corpus)."""
        if self.prompts_dir is None or not (self.prompts_dir / "versions.json").is_file():
            return {}
        try:
            return json.loads((self.prompts_dir / "versions.json").read_text())
        except (ValueError, OSError):
            return {}

    def backend_for(self, step: AgentStep) -> str:
        return backend_of(self.brain, step)

    def note_corrections(self, step_name: str, corrections: list[str]) -> None:
        """Attach cross-check corrections to the latest record of a step."""
        self.transcript.note_corrections(step_name, corrections)
