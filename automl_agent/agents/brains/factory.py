"""--llm SPEC -> a brain.

Specs: 'offline' (default), 'openai:MODEL' (OPENAI_BASE_URL / OPENAI_API_KEY), 'azure:DEPLOYMENT'
(AZURE_OPENAI_ENDPOINT / AZURE_OPENAI_API_KEY / OPENAI_API_VERSION), 'gguf:PATH|gemma3-270m' (a local llama.cpp
server in process), 'scripted:FILE' (tests). Per-agent specs (`--llm-agent manager=gguf:...`) route one
agent's steps to another brain. Every LLM brain falls back to the offline rules for a step it cannot answer."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ...config import current_settings
from ...errors import UserFacingError
from .base import RoutedBrain
from .offline import OfflineBrain

AGENTS = ("manager", "prompt", "data", "model", "operation")
KINDS = ("offline", "openai", "azure", "gguf", "scripted")
LLM_KINDS = ("openai", "azure", "gguf")  # the backends whose answers are a model's, not the rules'
AZURE_API_VERSION = "2025-04-01-preview"  # the first to take reasoning models' parameters and structured outputs
REASONING_EFFORTS = ("minimal", "low", "medium", "high")


def validate_spec(spec: str) -> None:
    """Check a brain spec without starting anything (the CLI calls this before the flow)."""
    kind, _, arg = spec.partition(":")
    if kind not in KINDS:
        raise UserFacingError(f"unknown --llm backend {spec!r}",
                              "Use 'offline' (default), 'openai:MODEL', 'azure:DEPLOYMENT', 'gguf:PATH' "
                              "(or gguf:gemma3-270m) or 'scripted:FILE'.")
    if kind in ("openai", "azure", "gguf", "scripted") and not arg:
        raise UserFacingError(f"--llm {kind} needs an argument, e.g. --llm openai:gpt-4o-mini or --llm gguf:gemma3-270m",
                              "Set OPENAI_BASE_URL for a compatible server (vLLM, Ollama, llama.cpp) and OPENAI_API_KEY if it needs one.")
    if kind == "azure" and not os.environ.get("AZURE_OPENAI_ENDPOINT"):
        raise UserFacingError(f"--llm {spec} needs AZURE_OPENAI_ENDPOINT (e.g. https://NAME.openai.azure.com)",
                              "Set AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_API_KEY; OPENAI_API_VERSION picks the API "
                              f"version ({AZURE_API_VERSION} by default).")
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


def validate_reasoning_effort(effort: str | None) -> None:
    if effort is not None and effort not in REASONING_EFFORTS:
        raise UserFacingError(f"--reasoning-effort {effort!r} is not one of {', '.join(REASONING_EFFORTS)}",
                              "Leave it out for the model's default.")


def remote_brain(spec: str, reasoning_effort: str | None = None, preflight: bool = True):
    """The LLMBrain of an 'openai:MODEL' or 'azure:DEPLOYMENT' spec (no fallback around it)."""
    from .llm import LLMBrain

    kind, _, arg = spec.partition(":")
    client = None
    if kind == "azure":
        from openai import AzureOpenAI

        client = AzureOpenAI(azure_endpoint=os.environ["AZURE_OPENAI_ENDPOINT"],
                             api_key=os.environ.get("AZURE_OPENAI_API_KEY") or os.environ.get("OPENAI_API_KEY") or "not-needed",
                             api_version=os.environ.get("OPENAI_API_VERSION") or AZURE_API_VERSION,
                             timeout=120.0, max_retries=3)
    return LLMBrain(arg, name=spec, client=client, reasoning_effort=reasoning_effort, preflight=preflight)


def _single(spec: str, log_dir: Path | None = None, strict: bool = False, reasoning_effort: str | None = None):
    kind, _, arg = spec.partition(":")
    if kind == "offline":
        return OfflineBrain()
    if kind in ("openai", "azure"):
        from .llm import FallbackBrain

        return FallbackBrain(remote_brain(spec, reasoning_effort), OfflineBrain(), strict=strict)
    if kind == "gguf":
        from .llm import FallbackBrain, LLMBrain
        from .local_llm import LocalLlamaServer, resolve_model

        path = resolve_model(arg)
        # a small local model writes slowly: each answer is bounded, so that a step ends in seconds, not minutes
        settings = current_settings()
        server = LocalLlamaServer.acquire(path, n_ctx=settings.gguf_ctx, threads=settings.gguf_threads,
                                          log_path=log_dir / "llama-server.log" if log_dir is not None else None)
        brain = LLMBrain(path.stem, base_url=server.base_url, api_key="local", name=f"gguf:{path.stem}",
                         max_tokens=settings.gguf_max_tokens, code_max_tokens=settings.gguf_code_max_tokens,
                         string_max_length=300,
                         timeout=600.0, max_retries=1, on_close=server.release, local=True)
        return FallbackBrain(brain, OfflineBrain(), strict=strict)
    if kind == "scripted":
        from .scripted import ScriptedBrain

        return ScriptedBrain(json.loads(Path(arg).read_text()))
    validate_spec(spec)
    raise AssertionError("unreachable")


def make_brain(spec: str, by_agent: dict[str, str] | None = None, log_dir: Path | None = None, strict: bool = False,
               reasoning_effort: str | None = None):
    """`log_dir`: where a local llama.cpp server writes its log (the run folder), instead of the terminal. `strict`:
    a step an LLM cannot answer stops the run instead of falling back to the rules."""
    validate_spec(spec)
    validate_reasoning_effort(reasoning_effort)
    default = _single(spec, log_dir, strict, reasoning_effort)
    if not by_agent:
        return default
    built: dict[str, object] = {spec: default}
    routes = {}
    for agent, agent_spec in by_agent.items():
        if agent_spec not in built:
            built[agent_spec] = _single(agent_spec, log_dir, strict, reasoning_effort)
        routes[agent] = built[agent_spec]
    return RoutedBrain(default, routes)
