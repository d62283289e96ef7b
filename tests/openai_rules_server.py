"""A real local HTTP server that speaks OpenAI's chat-completions protocol and enforces its documented parameter rules.

- a reasoning model (o-series, gpt-5 family) refuses `temperature` other than 1, `top_p`, and `max_tokens` (it takes
  `max_completion_tokens`), and reports reasoning tokens; a classic model refuses `reasoning_effort`;
- structured outputs by switch: "strict" (checks the schema as strict mode does), "schema" (json_schema without the
  strict check), "none" (refuses json_schema: vLLM-, Ollama-like servers in JSON mode);
- a wrong key is a 401, an unknown model a 404, both with OpenAI's error body;
- Azure's path (/openai/deployments/NAME/chat/completions?api-version=...) and `api-key` header are served too; a
  deployment answers as the model behind it.
Answers come from `answer(schema, body)` (the schema of the response format, else the one the instructions show);
where that returns None, the smallest instance of the schema.
Binds 127.0.0.1 on a free port; the test that starts it stops it."""

from __future__ import annotations

import json
import re
import threading
from urllib.parse import urlparse

from tests.local_http import JSONHandler, LocalHTTPServer

REASONING = re.compile(r"^(o\d|gpt-5(?!.*chat))")


def _error(code: int, message: str, param: str | None, kind: str) -> tuple[int, dict]:
    return code, {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": kind}}


def strict_problems(schema: dict, path: str = "") -> list[str]:
    """What OpenAI's strict mode would refuse in a schema: open objects, properties left out of `required`."""
    problems: list[str] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            if schema.get("additionalProperties") is not False:
                problems.append(f"In context=({path}), 'additionalProperties' is required to be supplied and to be false")
            missing = set(schema.get("properties", {})) - set(schema.get("required", []))
            if missing:
                problems.append(f"In context=({path}), 'required' is required to be supplied and to be an array "
                                f"including every key in properties. Missing {sorted(missing)[0]!r}")
        for key, value in schema.items():
            if isinstance(value, (dict, list)):
                problems += strict_problems(value, f"{path}.{key}" if path else key)
    elif isinstance(schema, list):
        for item in schema:
            problems += strict_problems(item, path)
    return problems


def _schema_in_instructions(body: dict) -> dict | None:
    instructions = next((m["content"] for m in body["messages"] if m["role"] in ("system", "developer")), "")
    found = re.search(r"JSON schema of your answer:\n(\{.*\})\s*$", instructions, flags=re.DOTALL)
    return json.loads(found.group(1)) if found else None


def smallest_instance(schema: dict, defs: dict | None = None):
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return smallest_instance(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return smallest_instance(schema["anyOf"][0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {name: smallest_instance(sub, defs) for name, sub in schema.get("properties", {}).items()
                if name in schema.get("required", [])}
    return {"array": [], "string": "", "integer": 0, "number": 0.0, "boolean": False, "null": None}.get(kind, {})


class OpenAIRulesServer(LocalHTTPServer):
    def __init__(self, models: dict[str, str], structured: str = "strict", api_key: str = "sk-test",
                 answer=None, deployments: dict[str, str] | None = None):
        """`models`: name -> "reasoning" | "classic"; `deployments`: Azure deployment name -> model name."""
        self.models, self.structured, self.api_key = models, structured, api_key
        self.deployments = deployments or {}
        self.answer = answer or (lambda schema, body: None)
        self.requests: list[dict] = []
        self.refused: list[tuple[int, str]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(JSONHandler):
            def do_GET(self):
                if urlparse(self.path).path.endswith("/models"):
                    return self._send(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in server.models]})
                return self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                code, payload = server.handle(urlparse(self.path).path, self.headers, body)
                self._send(code, payload)

        self._serve(Handler)

    def handle(self, path: str, headers, body: dict) -> tuple[int, dict]:
        with self._lock:
            self.requests.append(body)
        code, payload = self._check(path, headers, body)
        if code != 200:
            with self._lock:
                self.refused.append((code, payload["error"]["message"]))
        return code, payload

    def _check(self, path: str, headers, body: dict) -> tuple[int, dict]:
        azure = re.match(r"^/openai/deployments/([^/]+)/chat/completions$", path)
        key = headers.get("api-key") if azure else headers.get("Authorization", "").removeprefix("Bearer ")
        if key != self.api_key:
            return _error(401, "Incorrect API key provided.", None, "invalid_api_key")
        model = self.deployments.get(azure.group(1)) if azure else body.get("model")
        if model not in self.models:
            return _error(404, f"The model `{body.get('model')}` does not exist or you do not have access to it.", None,
                          "model_not_found")
        reasoning = self.models[model] == "reasoning"
        if reasoning:
            if "temperature" in body and body["temperature"] != 1:
                return _error(400, f"Unsupported value: 'temperature' does not support {body['temperature']} with this "
                                   "model. Only the default (1) value is supported.", "temperature", "unsupported_value")
            for name in ("top_p", "presence_penalty", "frequency_penalty", "logprobs"):
                if name in body:
                    return _error(400, f"Unsupported parameter: '{name}' is not supported with this model.", name,
                                  "unsupported_parameter")
            if "max_tokens" in body:
                return _error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                                   "'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
        elif "reasoning_effort" in body:
            return _error(400, "Unrecognized request argument supplied: reasoning_effort", "reasoning_effort",
                          "unsupported_parameter")
        fmt = body.get("response_format") or {}
        schema, schema_name = None, ""
        if fmt.get("type") == "json_schema":
            if self.structured == "none":
                return _error(400, "'response_format' of type 'json_schema' is not supported with this model.",
                              "response_format", "unsupported_value")
            schema, schema_name = fmt["json_schema"]["schema"], fmt["json_schema"]["name"]
            if fmt["json_schema"].get("strict") and self.structured == "strict":
                problems = strict_problems(schema)
                if problems:
                    return _error(400, f"Invalid schema for response_format '{schema_name}': {problems[0]}.",
                                  "response_format", "invalid_json_schema")
        if schema is None:  # JSON mode or plain text: a model reads the schema the instructions show
            schema = _schema_in_instructions(body)
        content = self.answer(schema, body)
        if content is None:
            content = json.dumps(smallest_instance(schema)) if schema else "{}"
        completion = max(1, len(content) // 4)
        reasoning_tokens = 64 if reasoning else 0
        return 200, {
            "id": "chatcmpl-rules", "object": "chat.completion", "created": 0,
            "model": f"{model}-2025-08-07" if reasoning else model,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": completion + reasoning_tokens,
                      "total_tokens": 50 + completion + reasoning_tokens,
                      "completion_tokens_details": {"reasoning_tokens": reasoning_tokens}},
        }
