"""What a call costs: a price table in US dollars per million tokens (input, output).

Public list prices as of late 2026; override or extend with AUTOML_AGENT_PRICES='{"my-model": [in, out]}'.
Local backends (gguf, offline, scripted) cost nothing. A model missing from the table has an unknown cost (None)."""

from __future__ import annotations

import json
import re

from ...config import current_settings

PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o4-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o1": (15.00, 60.00),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
}
# reasoning tokens are billed as output tokens and are already inside completion_tokens: they are not added again
SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")
REFERENCE_MODEL = "gpt-4o"  # the paper's backbone; every run also reports what it would cost there


def price_table() -> dict[str, tuple[float, float]]:
    table = dict(PRICES_PER_MTOK)
    extra = current_settings().prices
    if extra:
        try:
            table.update({k: (float(v[0]), float(v[1])) for k, v in json.loads(extra).items()})
        except (ValueError, TypeError, IndexError, AttributeError):
            pass  # a malformed override must not break a run; the defaults stay
    return table


def price_of(model: str) -> tuple[float, float] | None:
    """The price of a model name or of its dated snapshot (gpt-5-mini-2025-08-07 is priced as gpt-5-mini)."""
    table = price_table()
    return table.get(model) or table.get(SNAPSHOT.sub("", model))


def cost_usd(backend: str, prompt_tokens: int, completion_tokens: int, served_model: str = "") -> float | None:
    """Cost of tokens on a backend spec such as 'openai:gpt-4o'; 0 for local backends, None when unknown. The model
    the server says it ran (`served_model`) prices an Azure deployment, whose name says nothing of its model."""
    kind, _, model = backend.partition(":")
    if kind not in ("openai", "azure"):
        return 0.0
    price = price_of(model) or (price_of(served_model) if served_model else None)
    if price is None:
        return None
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6


def reference_cost_usd(prompt_tokens: int, completion_tokens: int) -> float:
    return cost_usd(f"openai:{REFERENCE_MODEL}", prompt_tokens, completion_tokens) or 0.0
