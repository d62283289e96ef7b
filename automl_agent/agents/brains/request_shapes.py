"""What to send an OpenAI-compatible server, and what it refused.

Each model family gets the request shape its provider documents (reasoning models: `max_completion_tokens`, no
sampling parameters, the `developer` role, `reasoning_effort`; classic models: `temperature`). A server that still
refuses a parameter says which one in its 400 (`param`, or the name quoted in the message): the request is sent once
more without it and the profile remembers, so the next steps of the run do not pay for the same refusal again."""

from __future__ import annotations

from ..understanding import rx as re  # the re functions over a larger compile cache
from typing import Any, Literal

from pydantic import BaseModel, Field

# OpenAI's o-series and the gpt-5 family reason before answering; "gpt-5-chat" is the classic chat variant
REASONING_MODEL = re.compile(r"^(?:.*/)?(o\d(?:$|-)|gpt-5(?!.*chat))", re.IGNORECASE)
# models known not to reason: `reasoning_effort` is not theirs (an unknown name gets it, and drops it if refused)
CLASSIC_MODEL = re.compile(r"^(?:.*/)?(gpt-4|gpt-3\.5|chatgpt|gpt-5.*chat)", re.IGNORECASE)
FORMATS = ("json_schema_strict", "json_schema", "json_object", "text")


def is_reasoning_model(model: str) -> bool:
    return bool(REASONING_MODEL.match(model))


class ServerProfile(BaseModel):
    """The request shape one model on one server takes: documented defaults, corrected by what it refused."""

    model: str
    reasoning: bool = False
    token_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    send_temperature: bool = True
    instructions_role: Literal["system", "developer"] = "system"
    reasoning_effort: str | None = None
    formats: list[str] = Field(default_factory=lambda: list(FORMATS), description="response formats still to try, best first")
    strict_refused: list[str] = Field(default_factory=list, description="schemas the server refused in strict mode")
    learned: list[str] = Field(default_factory=list, description="what the server refused, in its words, and what changed")

    @classmethod
    def for_model(cls, model: str, *, local: bool = False, reasoning_effort: str | None = None) -> "ServerProfile":
        """`local`: a llama.cpp server of our own (no strict mode, `max_tokens`)."""
        if local:
            return cls(model=model, formats=[f for f in FORMATS if f != "json_schema_strict"])
        if is_reasoning_model(model):
            return cls(model=model, reasoning=True, token_param="max_completion_tokens", send_temperature=False,
                       instructions_role="developer", reasoning_effort=reasoning_effort)
        return cls(model=model, token_param="max_completion_tokens",
                   reasoning_effort=None if CLASSIC_MODEL.match(model) else reasoning_effort)


def strict_schema(schema: dict) -> dict | None:
    """The schema as OpenAI's strict mode takes it (every property required, optional ones nullable, no defaults, no
    open objects), or None when it has an open object (a free-form dict) that strict mode cannot express."""
    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        out = {k: walk(v) for k, v in node.items() if k not in ("default", "title")}
        if out.get("type") == "object":
            if "properties" not in out or out.get("additionalProperties") not in (None, False):
                raise _OpenObject
            required = set(node.get("required", []))
            out["properties"] = {name: (sub if name in required else _nullable(sub))
                                 for name, sub in out["properties"].items()}
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out

    try:
        return walk(schema)
    except _OpenObject:
        return None


class _OpenObject(Exception):
    pass


def _nullable(node: dict) -> dict:
    if node.get("type") == "null" or any(o.get("type") == "null" for o in node.get("anyOf", [])):
        return node
    if "anyOf" in node:
        return {**node, "anyOf": [*node["anyOf"], {"type": "null"}]}
    described = {k: node[k] for k in ("description",) if k in node}
    return {"anyOf": [{k: v for k, v in node.items() if k != "description"}, {"type": "null"}], **described}


def drop_added_nulls(value: Any, schema: dict, defs: dict | None = None) -> Any:
    """An answer to a strict schema without the nulls strict mode made the model write for optional fields: those
    fields then take their defaults, as the contract says."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    if "anyOf" in schema:
        branch = next((b for b in schema["anyOf"] if _matches(value, b, defs)), None)
        return drop_added_nulls(value, branch, defs) if branch else value
    if isinstance(value, dict) and "properties" in schema:
        required = set(schema.get("required", []))
        return {k: drop_added_nulls(v, schema["properties"].get(k, {}), defs) for k, v in value.items()
                if not (v is None and k not in required)}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [drop_added_nulls(v, schema["items"], defs) for v in value]
    return value


def _matches(value: Any, schema: dict, defs: dict) -> bool:
    if "$ref" in schema:
        schema = defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
    kind = schema.get("type")
    return ((kind == "object" and isinstance(value, dict)) or (kind == "array" and isinstance(value, list))
            or (kind is None and "anyOf" in schema))


def refused_parameter(exc: Exception, sent: dict) -> str | None:
    """Which parameter of the request a 400 refused: the error's `param`, else a sent name its message quotes."""
    param = (getattr(exc, "param", None) or "").split(".")[0].split("[")[0]
    message = str(getattr(exc, "message", "") or exc)
    if param in sent or param == "messages":
        return param
    if "response_format" in message or "json_schema" in message or "json_object" in message:
        return "response_format"
    for name in sorted(sent, key=len, reverse=True):
        if name not in ("model", "messages") and re.search(rf"['\"`]?\b{re.escape(name)}\b['\"`]?", message):
            return name
    if "developer" in message and "role" in message:
        return "messages"
    return None


def learn(profile: ServerProfile, exc: Exception, sent: dict, fmt: str, schema_name: str) -> str | None:
    """Change the profile after a 400; return what was learned, or None when the refusal names nothing we can drop
    (then the step fails and the offline rules answer it)."""
    param = refused_parameter(exc, sent)
    message = str(getattr(exc, "message", "") or exc)[:200]
    model = profile.model
    if param == "temperature" and profile.send_temperature:
        profile.send_temperature = False
        note = f"{model} rejected temperature={sent.get('temperature')}; sent without it"
    elif param in ("max_tokens", "max_completion_tokens") and profile.token_param == param:
        profile.token_param = "max_completion_tokens" if param == "max_tokens" else "max_tokens"
        note = f"{model} rejected {param}; sent {profile.token_param} instead"
    elif param == "reasoning_effort" and profile.reasoning_effort:
        profile.reasoning_effort = None
        note = f"{model} rejected reasoning_effort; sent without it"
    elif param == "messages" and profile.instructions_role == "developer" and "developer" in message:
        profile.instructions_role = "system"
        note = f"{model} rejected the developer role; instructions sent as system"
    elif param == "response_format" and fmt == "json_schema_strict" and re.search(r"invalid schema|strict", message, re.I):
        profile.strict_refused.append(schema_name)
        note = f"{model} refused the strict schema {schema_name} ({message}); sent it without strict"
    elif param == "response_format" and fmt in profile.formats and fmt != "text":
        # a server without JSON-schema outputs refuses the strict and the plain rung alike
        for gone in ((fmt, "json_schema") if fmt == "json_schema_strict" else (fmt,)):
            if gone in profile.formats:
                profile.formats.remove(gone)
        note = f"{model} refused response_format {fmt.removesuffix('_strict')}; using {profile.formats[0]}"
    else:
        return None
    profile.learned.append(note)
    return note
