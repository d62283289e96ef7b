"""What a call costs: a price table in US dollars per million tokens (input, output).

Public list prices as of late 2026; override or extend with AUTOML_AGENT_PRICES='{"my-model": [in, out]}'.
Local backends (gguf, offline, scripted) cost nothing. A model missing from the table has an unknown cost (None)."""

from __future__ import annotations

import json
import os

PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o4-mini": (1.10, 4.40),
}
REFERENCE_MODEL = "gpt-4o"  # the paper's backbone; every run also reports what it would cost there


def price_table() -> dict[str, tuple[float, float]]:
    table = dict(PRICES_PER_MTOK)
    extra = os.environ.get("AUTOML_AGENT_PRICES")
    if extra:
        try:
            table.update({k: (float(v[0]), float(v[1])) for k, v in json.loads(extra).items()})
        except (ValueError, TypeError, IndexError, AttributeError):
            pass  # a malformed override must not break a run; the defaults stay
    return table


def cost_usd(backend: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Cost of tokens on a backend spec such as 'openai:gpt-4o'; 0 for local backends, None when unknown."""
    kind, _, model = backend.partition(":")
    if kind != "openai":
        return 0.0
    price = price_table().get(model)
    if price is None:
        return None
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6


def reference_cost_usd(prompt_tokens: int, completion_tokens: int) -> float:
    return cost_usd(f"openai:{REFERENCE_MODEL}", prompt_tokens, completion_tokens) or 0.0
