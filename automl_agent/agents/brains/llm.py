"""The LLM brain: any OpenAI-compatible chat-completions server (OpenAI, Azure, vLLM, Ollama, llama.cpp).

Structured output from the step's pydantic contract: JSON-schema response format where the server takes it,
JSON mode otherwise; the answer is validated, with one repair round that shows the model its validation error."""

from __future__ import annotations

import json
import os
import re
import threading
import time

from pydantic import BaseModel, Field, ValidationError

from ...errors import UserFacingError
from .base import AgentStep, Usage
from .request_shapes import ServerProfile, drop_added_nulls, is_reasoning_model, learn, strict_schema


class LLMStepError(RuntimeError):
    """An LLM step that gave no valid answer after the repair round; `usage` is what the failed tries cost."""

    def __init__(self, message: str, usage: Usage | None = None):
        super().__init__(message)
        self.usage = usage or Usage()


def _extract_json(text: str) -> str:
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, flags=re.DOTALL)
    if fenced:
        return fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if start >= 0 and end > start else text


def compact_schema(node):
    """The schema without its generated titles: the same contract in fewer prompt tokens."""
    if isinstance(node, dict):
        return {k: compact_schema(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [compact_schema(v) for v in node]
    return node


def schema_text(output: type[BaseModel]) -> str:
    """The answer's JSON schema as the system prompt shows it: compact, on one line."""
    return json.dumps(compact_schema(output.model_json_schema()), separators=(",", ":"))


def bound_strings(schema: dict, max_length: int, long_fields: frozenset[str] = frozenset({"source", "replace"}),
                  max_items: int = 12) -> dict:
    """A copy of a JSON schema whose free-text fields have a maxLength and lists a maxItems. llama.cpp turns the
    schema into a grammar, so a small model cannot loop inside a string or a list until it runs out of tokens."""
    def walk(node, key=None):
        if isinstance(node, dict):
            out = {k: walk(v, k) for k, v in node.items()}
            if out.get("type") == "string" and "enum" not in out and "maxLength" not in out and key not in long_fields:
                out["maxLength"] = max_length
            if out.get("type") == "array" and "maxItems" not in out:
                out["maxItems"] = max_items
            if "properties" in out:
                out["properties"] = {name: walk(sub, name) for name, sub in node["properties"].items()}
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node
    return walk(schema)


class LLMUnavailable(UserFacingError):
    """The server, the key or the model does not work at all: the run stops at its start and says which."""


class Probe(BaseModel):
    """The one-field answer `llm check` and a run's first call ask for."""

    ok: bool


class CheckReport(BaseModel):
    """What one small structured request to the server showed (`automl-agent llm check`, and each run's start)."""

    backend: str
    base_url: str
    model: str
    served_model: str = Field(default="", description="the model the server says answered (Azure: behind the deployment)")
    reachable: bool | None = None  # None: not known (an earlier check failed first)
    authorised: bool | None = None
    model_found: bool | None = None
    answered: bool = Field(default=False, description="the answer was valid JSON of the requested schema")
    response_format: str = Field(default="", description="the best format the server took: json_schema_strict, json_schema, json_object or text")
    usage_reported: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    reasoning_model: bool = False
    learned: list[str] = Field(default_factory=list, description="parameters the server refused and what is sent instead")
    seconds: float = 0.0
    error: str = ""
    hint: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


class LLMBrain:
    """One model behind an OpenAI-compatible chat-completions endpoint. The request shape follows the model family
    (request_shapes.ServerProfile) and what the server refused; with `preflight`, the first step is preceded by one
    small request that stops the run at once on a bad key, an unknown model or an unreachable server."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None, timeout: float = 120.0,
                 max_retries: int = 3, temperature: float = 0.0, name: str | None = None,
                 max_tokens: int | None = None, code_max_tokens: int | None = None, string_max_length: int | None = None,
                 on_close=None, local: bool = False, reasoning_effort: str | None = None, preflight: bool = False,
                 client=None):
        from openai import OpenAI

        self.model = model
        self.name = name or f"openai:{model}"
        self.temperature = temperature
        self.max_tokens, self.code_max_tokens = max_tokens, code_max_tokens
        self.string_max_length = string_max_length
        self._on_close = on_close
        self.client = client or OpenAI(base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
                                       api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
                                       timeout=timeout, max_retries=max_retries)  # the client retries 429, 5xx, timeouts
        self.profile = ServerProfile.for_model(model, local=local, reasoning_effort=reasoning_effort)
        self.preflight = preflight
        self._checked = False
        self._lock = threading.Lock()

    def close(self) -> None:
        if self._on_close is not None:
            self._on_close()
            self._on_close = None

    def _schema(self, output: type[BaseModel]) -> dict:
        schema = output.model_json_schema()
        return bound_strings(schema, self.string_max_length) if self.string_max_length else schema

    def _response_format(self, fmt: str, output: type[BaseModel]) -> tuple[dict | None, dict | None]:
        """(the response_format to send, the schema the answer follows) for one rung of the format ladder; None
        when this rung does not apply to this schema (strict mode and an open object)."""
        schema = self._schema(output)
        if fmt == "json_schema_strict":
            strict = strict_schema(schema)
            if strict is None or output.__name__ in self.profile.strict_refused:
                return None, None
            # the answer is read against the contract's own schema: nulls in its optional fields take their defaults
            return {"type": "json_schema", "json_schema": {"name": output.__name__, "schema": strict, "strict": True}}, schema
        if fmt == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": output.__name__, "schema": schema}}, schema
        if fmt == "json_object":
            return {"type": "json_object"}, schema
        return {}, schema

    def _best_format(self, output: type[BaseModel]) -> tuple[str, dict, dict]:
        """The first rung of the profile's format ladder that applies to this schema: (its name, the response_format
        to send, the schema the answer follows)."""
        for fmt in self.profile.formats:
            response_format, answer_schema = self._response_format(fmt, output)
            if response_format is not None:
                return fmt, response_format, answer_schema
        raise AssertionError("the ladder ends with 'text', which applies to every schema")

    def _request(self, messages: list[dict], limit: int | None, response_format: dict) -> dict:
        profile = self.profile
        sent = {"model": self.model, "messages": [
            {**m, "role": profile.instructions_role} if m["role"] == "system" else m for m in messages]}
        if response_format:
            sent["response_format"] = response_format
        if profile.send_temperature:
            sent["temperature"] = self.temperature
        if limit:
            sent[profile.token_param] = limit
        if profile.reasoning_effort:
            sent["reasoning_effort"] = profile.reasoning_effort
        return sent

    def _complete(self, messages: list[dict], output: type[BaseModel]) -> tuple[str, Usage, bool, dict]:
        """The answer's text, its usage, whether it was cut off at the token limit, and the schema it follows."""
        from openai import BadRequestError

        limit = self.code_max_tokens if "source" in output.model_fields else self.max_tokens
        learned: list[str] = []
        for _ in range(8):  # each refusal removes one parameter or format rung: a bounded number of tries
            fmt, response_format, answer_schema = self._best_format(output)
            sent = self._request(messages, limit, response_format)
            try:
                response = self.client.chat.completions.create(**sent)
            except BadRequestError as exc:
                with self._lock:
                    note = learn(self.profile, exc, sent, fmt, output.__name__)
                if note is None:
                    raise LLMStepError(f"{self.model} refused the request: {_said(exc)}", Usage(learned=learned)) from exc
                learned.append(note)
                continue
            return (*self._read(response, learned), answer_schema)
        raise LLMStepError(f"{self.model} refused every request shape: {'; '.join(learned)}", Usage(learned=learned))

    @staticmethod
    def _read(response, learned: list[str]) -> tuple[str, Usage, bool]:
        usage, choice = response.usage, response.choices[0]
        details = getattr(usage, "completion_tokens_details", None)
        return (choice.message.content or "",
                Usage(getattr(usage, "prompt_tokens", 0) or 0, getattr(usage, "completion_tokens", 0) or 0,
                      reasoning_tokens=getattr(details, "reasoning_tokens", 0) or 0,
                      served_model=getattr(response, "model", "") or "", learned=list(learned)),
                choice.finish_reason == "length")

    def check(self) -> CheckReport:
        """One small structured request: is the server there, the key good, the model known, and which request shape
        and response format work. The run's first step waits for it; `automl-agent llm check` prints it."""
        import openai

        report = CheckReport(backend=self.name, base_url=str(self.client.base_url), model=self.model,
                             reasoning_model=self.profile.reasoning)
        started = time.perf_counter()
        messages = [{"role": "system", "content": "Answer with a JSON object only.\n\nJSON schema of your answer:\n"
                                                  + schema_text(Probe)},
                    {"role": "user", "content": 'Reply with {"ok": true}.'}]
        try:
            text, usage, _, schema = self._complete(messages, Probe)
        except openai.AuthenticationError as exc:
            report.reachable, report.authorised = True, False
            report.error = f"the server refused the API key (401): {_said(exc)}"
            report.hint = "Set OPENAI_API_KEY (AZURE_OPENAI_API_KEY for azure:) to a valid key."
        except openai.PermissionDeniedError as exc:
            report.reachable, report.authorised, report.model_found = True, False, True
            report.error = f"the key may not use {self.model} (403): {_said(exc)}"
            report.hint = "Use a model the key's project may call, or ask its owner for access."
        except openai.NotFoundError as exc:
            report.reachable, report.authorised, report.model_found = True, True, False
            report.error = f"the server knows no model {self.model!r} (404): {_said(exc)}"
            report.hint = ("Check the name (for Azure: the deployment name) and the endpoint; "
                           "`curl $OPENAI_BASE_URL/models` lists what an OpenAI-compatible server serves.")
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            report.reachable = False
            report.error = f"cannot reach {report.base_url}: {_said(exc)}"
            report.hint = "Start the server, or set OPENAI_BASE_URL (AZURE_OPENAI_ENDPOINT for azure:) to where it listens."
        except (openai.APIError, LLMStepError) as exc:
            report.reachable = report.authorised = report.model_found = True
            report.error = f"the server answered with an error: {_said(exc)}"
            report.hint = "Run `automl-agent llm check` with the same --llm to see what the server takes."
        else:
            report.reachable = report.authorised = report.model_found = True
            report.response_format = self._best_format(Probe)[0]
            report.served_model = usage.served_model
            if usage.served_model and is_reasoning_model(usage.served_model) and not self.profile.reasoning:
                with self._lock:  # a deployment name hid a reasoning model: its documented shape from now on
                    self.profile.reasoning, self.profile.send_temperature = True, False
                    self.profile.token_param = "max_completion_tokens"
            report.reasoning_model = self.profile.reasoning
            report.usage_reported = usage.prompt_tokens > 0
            report.prompt_tokens, report.completion_tokens = usage.prompt_tokens, usage.completion_tokens
            report.reasoning_tokens = usage.reasoning_tokens
            try:
                Probe.model_validate(drop_added_nulls(json.loads(_extract_json(text)), schema))
                report.answered = True
            except (ValueError, ValidationError):
                report.answered = False
        report.learned = list(self.profile.learned)
        report.seconds = round(time.perf_counter() - started, 3)
        return report

    def _ensure_checked(self) -> Usage:
        """The preflight, once per brain: what it cost is added to the first step's usage (it is real spending)."""
        with self._lock:
            if not self.preflight or self._checked:
                return Usage()
            self._checked = True  # other threads go on
        report = self.check()
        if not report.ok:
            raise LLMUnavailable(f"--llm {self.name}: {report.error}", report.hint, status="failed")
        return Usage(report.prompt_tokens, report.completion_tokens, reasoning_tokens=report.reasoning_tokens,
                     served_model=report.served_model, learned=list(report.learned))

    def answer(self, step: AgentStep) -> tuple[BaseModel, Usage]:
        schema = schema_text(step.output)
        messages = [
            {"role": "system", "content": step.system_prompt() + f"\n\nJSON schema of your answer:\n{schema}"},
            {"role": "user", "content": step.user_prompt()},
        ]
        total = self._ensure_checked()
        for attempt in range(2):
            try:
                text, usage, cut_off, answer_schema = self._complete(messages, step.output)
            except LLMStepError as exc:
                raise LLMStepError(f"{step.name}: {exc}", total.plus(exc.usage)) from exc
            total = total.plus(usage, repair=bool(attempt))
            try:
                return step.output.model_validate(drop_added_nulls(json.loads(_extract_json(text)), answer_schema)), total
            except (ValidationError, ValueError) as exc:
                if attempt == 1:
                    raise LLMStepError(f"{step.name}: no valid answer after one repair round: {str(exc)[:300]}", total) from exc
                if cut_off:  # echoing an unfinished answer back costs its tokens again and teaches nothing
                    messages += [{"role": "user", "content": "Your answer was cut off at the token limit before the "
                                                             "JSON object closed. Answer again, much shorter: only the "
                                                             "required fields, no repetition."}]
                else:
                    messages += [{"role": "assistant", "content": text},
                                 {"role": "user", "content": f"That answer does not match the schema: {exc}. "
                                                             "Answer again with only the corrected JSON object."}]
        raise AssertionError("unreachable")


def _said(exc: Exception) -> str:
    return str(getattr(exc, "message", "") or exc)[:200]


class FallbackBrain:
    """A primary brain whose failed steps are answered by the offline rules, so a weak model still delivers; with
    `strict` (--llm-strict) a step the model cannot answer stops the run instead, with the reason."""

    def __init__(self, primary, fallback, strict: bool = False):
        self.primary, self.fallback, self.strict = primary, fallback, strict
        self.name = primary.name
        self.fallbacks: list[str] = []

    def close(self) -> None:
        getattr(self.primary, "close", lambda: None)()

    def answer(self, step: AgentStep) -> tuple[BaseModel, Usage]:
        import openai

        try:
            return self.primary.answer(step)
        except (LLMStepError, openai.APIError) as exc:  # LLMUnavailable (the preflight) is not caught: it stops the run
            reason = str(exc) if isinstance(exc, LLMStepError) else f"{step.name}: {self.name} failed: {_said(exc)}"
            spent = getattr(exc, "usage", None) or Usage()
            if self.strict:
                raise UserFacingError(f"--llm-strict: {reason}",
                                      "Run without --llm-strict to let the offline rules answer such a step, or use "
                                      "`automl-agent llm check --llm SPEC` to see what the server takes.",
                                      status="failed") from exc
            self.fallbacks.append(reason)
            answer, usage = self.fallback.answer(step)
            # the tokens the model spent on its failed tries are real: they count towards the run's usage
            return answer, Usage(usage.prompt_tokens + spent.prompt_tokens,
                                 usage.completion_tokens + spent.completion_tokens,
                                 spent.repair_prompt_tokens, spent.repair_completion_tokens, fallback=reason,
                                 reasoning_tokens=spent.reasoning_tokens, served_model=spent.served_model,
                                 learned=spent.learned)
