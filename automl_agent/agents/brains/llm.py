"""The LLM brain: any OpenAI-compatible chat-completions server (OpenAI, Azure, vLLM, Ollama, llama.cpp).

Structured output from the step's pydantic contract: JSON-schema response format where the server takes it,
JSON mode otherwise; the answer is validated, with one repair round that shows the model its validation error."""

from __future__ import annotations

import json
import os
import re

from pydantic import BaseModel, ValidationError

from .base import AgentStep, Usage


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


class LLMBrain:
    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None, timeout: float = 120.0,
                 max_retries: int = 3, temperature: float = 0.0, name: str | None = None,
                 max_tokens: int | None = None, code_max_tokens: int | None = None, string_max_length: int | None = None,
                 on_close=None):
        from openai import OpenAI

        self.model = model
        self.name = name or f"openai:{model}"
        self.temperature = temperature
        self.max_tokens, self.code_max_tokens = max_tokens, code_max_tokens
        self.string_max_length = string_max_length
        self._on_close = on_close
        self.client = OpenAI(base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
                             api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
                             timeout=timeout, max_retries=max_retries)  # the client retries 429, 5xx and timeouts
        self.schema_supported: bool | None = None

    def close(self) -> None:
        if self._on_close is not None:
            self._on_close()
            self._on_close = None

    def _schema(self, output: type[BaseModel]) -> dict:
        schema = output.model_json_schema()
        return bound_strings(schema, self.string_max_length) if self.string_max_length else schema

    def _complete(self, messages: list[dict], output: type[BaseModel]) -> tuple[str, Usage, bool]:
        """The answer's text, its usage, and whether it was cut off at the token limit."""
        from openai import BadRequestError

        schema_format = {"type": "json_schema", "json_schema": {"name": output.__name__, "schema": self._schema(output)}}
        limit = self.code_max_tokens if "source" in output.model_fields else self.max_tokens
        extra = {"max_tokens": limit} if limit else {}
        formats = [schema_format, {"type": "json_object"}] if self.schema_supported is not False else [{"type": "json_object"}]
        last: Exception | None = None
        for fmt in formats:
            try:
                response = self.client.chat.completions.create(model=self.model, messages=messages, response_format=fmt,
                                                                temperature=self.temperature, **extra)
            except BadRequestError as exc:  # this server does not take that response format: try the next one
                last = exc
                if fmt is schema_format:
                    self.schema_supported = False
                continue
            if fmt is schema_format:
                self.schema_supported = True
            usage, choice = response.usage, response.choices[0]
            return (choice.message.content or "",
                    Usage(getattr(usage, "prompt_tokens", 0) or 0, getattr(usage, "completion_tokens", 0) or 0),
                    choice.finish_reason == "length")
        raise LLMStepError(f"the server refused every response format: {last}")

    def answer(self, step: AgentStep) -> tuple[BaseModel, Usage]:
        schema = schema_text(step.output)
        messages = [
            {"role": "system", "content": step.system_prompt() + f"\n\nJSON schema of your answer:\n{schema}"},
            {"role": "user", "content": step.user_prompt()},
        ]
        total = Usage()
        for attempt in range(2):
            text, usage, cut_off = self._complete(messages, step.output)
            total.prompt_tokens += usage.prompt_tokens
            total.completion_tokens += usage.completion_tokens
            if attempt:
                total.repair_prompt_tokens += usage.prompt_tokens
                total.repair_completion_tokens += usage.completion_tokens
            try:
                return step.output.model_validate_json(_extract_json(text)), total
            except ValidationError as exc:
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


class FallbackBrain:
    """A primary brain whose failed steps are answered by the offline rules, so a weak model still delivers."""

    def __init__(self, primary, fallback):
        self.primary, self.fallback = primary, fallback
        self.name = primary.name
        self.fallbacks: list[str] = []

    def close(self) -> None:
        getattr(self.primary, "close", lambda: None)()

    def answer(self, step: AgentStep) -> tuple[BaseModel, Usage]:
        try:
            return self.primary.answer(step)
        except LLMStepError as exc:
            self.fallbacks.append(str(exc))
            answer, usage = self.fallback.answer(step)
            # the tokens the model spent on its failed tries are real: they count towards the run's usage
            return answer, Usage(usage.prompt_tokens + exc.usage.prompt_tokens,
                                 usage.completion_tokens + exc.usage.completion_tokens,
                                 exc.usage.repair_prompt_tokens, exc.usage.repair_completion_tokens, fallback=str(exc))
