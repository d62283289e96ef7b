"""--llm SPEC -> a brain: 'offline' (default), 'openai:MODEL' (OPENAI_BASE_URL / OPENAI_API_KEY), 'scripted:FILE'."""

from __future__ import annotations

import json
from pathlib import Path

from ...errors import UserFacingError
from .offline import OfflineBrain


def make_brain(spec: str):
    kind, _, arg = spec.partition(":")
    if kind == "offline":
        return OfflineBrain()
    if kind == "openai":
        if not arg:
            raise UserFacingError("--llm openai needs a model name, e.g. --llm openai:gpt-4o-mini",
                                  "Set OPENAI_BASE_URL for a compatible server (vLLM, Ollama, llama.cpp) and OPENAI_API_KEY if it needs one.")
        from .llm import FallbackBrain, LLMBrain

        return FallbackBrain(LLMBrain(arg), OfflineBrain())
    if kind == "scripted":
        from .scripted import ScriptedBrain

        path = Path(arg)
        if not path.exists():
            raise UserFacingError(f"scripted answers file not found: {arg}", "Give a JSON file mapping step names to lists of answers.")
        return ScriptedBrain(json.loads(path.read_text()))
    raise UserFacingError(f"unknown --llm backend {spec!r}", "Use 'offline' (default) or 'openai:MODEL'.")
