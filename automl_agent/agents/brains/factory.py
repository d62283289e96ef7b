"""--llm SPEC -> a brain.

Specs: 'offline' (default), 'openai:MODEL' (OPENAI_BASE_URL / OPENAI_API_KEY), 'gguf:PATH|gemma3-270m' (a local
llama.cpp server in process), 'scripted:FILE' (tests). Per-agent specs (`--llm-agent manager=gguf:...`) route one
agent's steps to another brain. Every LLM brain falls back to the offline rules for a step it cannot answer."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ...errors import UserFacingError
from .base import RoutedBrain
from .offline import OfflineBrain

AGENTS = ("manager", "prompt", "data", "model", "operation")
KINDS = ("offline", "openai", "gguf", "scripted")
# A small local model writes slowly: bound each answer so a step ends in seconds, not minutes.
GGUF_MAX_TOKENS = int(os.environ.get("AUTOML_AGENT_GGUF_MAX_TOKENS", "512"))
GGUF_CODE_MAX_TOKENS = int(os.environ.get("AUTOML_AGENT_GGUF_CODE_MAX_TOKENS", "1024"))
GGUF_CTX = int(os.environ.get("AUTOML_AGENT_GGUF_CTX", "16384"))


def validate_spec(spec: str) -> None:
    """Check a brain spec without starting anything (the CLI calls this before the flow)."""
    kind, _, arg = spec.partition(":")
    if kind not in KINDS:
        raise UserFacingError(f"unknown --llm backend {spec!r}",
                              "Use 'offline' (default), 'openai:MODEL', 'gguf:PATH' (or gguf:gemma3-270m) or 'scripted:FILE'.")
    if kind in ("openai", "gguf", "scripted") and not arg:
        raise UserFacingError(f"--llm {kind} needs an argument, e.g. --llm openai:gpt-4o-mini or --llm gguf:gemma3-270m",
                              "Set OPENAI_BASE_URL for a compatible server (vLLM, Ollama, llama.cpp) and OPENAI_API_KEY if it needs one.")
    if kind == "gguf":
        from .local_llm import check_available

        check_available(arg)
    if kind == "scripted" and not Path(arg).exists():
        raise UserFacingError(f"scripted answers file not found: {arg}", "Give a JSON file mapping step names to lists of answers.")


def parse_agent_specs(items: list[str]) -> dict[str, str]:
    """['manager=gguf:x', ...] -> {'manager': 'gguf:x'}, with clear errors."""
    routes: dict[str, str] = {}
    for item in items:
        agent, sep, spec = item.partition("=")
        if not sep or agent not in AGENTS or not spec:
            raise UserFacingError(f"--llm-agent {item!r} is not AGENT=SPEC",
                                  f"AGENT is one of {', '.join(AGENTS)}; for example --llm-agent manager=openai:gpt-4o-mini")
        validate_spec(spec)
        routes[agent] = spec
    return routes


def _single(spec: str, log_dir: Path | None = None):
    kind, _, arg = spec.partition(":")
    if kind == "offline":
        return OfflineBrain()
    if kind == "openai":
        from .llm import FallbackBrain, LLMBrain

        return FallbackBrain(LLMBrain(arg), OfflineBrain())
    if kind == "gguf":
        from .llm import FallbackBrain, LLMBrain
        from .local_llm import LocalLlamaServer, resolve_model

        path = resolve_model(arg)
        server = LocalLlamaServer.acquire(path, n_ctx=GGUF_CTX,
                                          log_path=log_dir / "llama-server.log" if log_dir is not None else None)
        brain = LLMBrain(path.stem, base_url=server.base_url, api_key="local", name=f"gguf:{path.stem}",
                         max_tokens=GGUF_MAX_TOKENS, code_max_tokens=GGUF_CODE_MAX_TOKENS, string_max_length=300,
                         timeout=600.0, max_retries=1, on_close=server.release)
        return FallbackBrain(brain, OfflineBrain())
    if kind == "scripted":
        from .scripted import ScriptedBrain

        return ScriptedBrain(json.loads(Path(arg).read_text()))
    validate_spec(spec)
    raise AssertionError("unreachable")


def make_brain(spec: str, by_agent: dict[str, str] | None = None, log_dir: Path | None = None):
    """`log_dir`: where a local llama.cpp server writes its log (the run folder), instead of the terminal."""
    validate_spec(spec)
    default = _single(spec, log_dir)
    if not by_agent:
        return default
    built: dict[str, object] = {spec: default}
    routes = {}
    for agent, agent_spec in by_agent.items():
        if agent_spec not in built:
            built[agent_spec] = _single(agent_spec, log_dir)
        routes[agent] = built[agent_spec]
    return RoutedBrain(default, routes)
