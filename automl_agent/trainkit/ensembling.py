"""Ensemble selection over a search's trials (Caruana et al., 2004): a weighted average of the out-of-fold
predictions of the best trials, grown greedily with replacement, kept only when it beats the best single trial on
the same out-of-fold rows by a margin. The training scripts import this; it knows nothing of any one model."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

import numpy as np

# a blend must beat the best single trial by this share of its score to be worth its size and latency
MIN_RELATIVE_GAIN = 0.002
MAX_POOL = 8
MAX_ROUNDS = 20


@dataclass
class Blend:
    members: list[int]  # trial numbers, best first
    weights: list[float]  # one per member, summing to 1
    score: float
    best_single: float


def _better(a: float, b: float, maximize: bool) -> bool:
    return a > b if maximize else a < b


def pool_of(trials: list, oof: dict[int, np.ndarray], maximize: bool, size: int = MAX_POOL) -> list[int]:
    """The trials worth blending: the best of each model family first (diversity), then the best overall, each once,
    only those whose out-of-fold predictions were kept."""
    ranked = sorted((t for t in trials if t.value is not None and t.number in oof),
                    key=lambda t: t.value, reverse=maximize)
    chosen: list[int] = []
    families: set = set()
    for t in ranked:
        family = t.user_attrs.get("model_key")
        if family not in families:
            families.add(family)
            chosen.append(t.number)
    for t in ranked:
        if len(chosen) >= size:
            break
        if t.number not in chosen:
            chosen.append(t.number)
    return sorted(chosen[:size], key=lambda n: [t.number for t in ranked].index(n))


def select(trials: list, oof: dict[int, np.ndarray], score: Callable[[np.ndarray], float], maximize: bool,
           min_relative_gain: float = MIN_RELATIVE_GAIN, cost: dict[int, float] | None = None,
           max_cost: float | None = None) -> Blend | None:
    """The greedy blend of the pooled trials' out-of-fold predictions (`score` rates an averaged prediction), or None
    when no blend of two or more trials beats the best single trial by the margin. With `cost` (seconds to refit each
    trial's model on all rows) and `max_cost`, a trial joins only while the members' refits fit in `max_cost`: the
    blend is refitted after the search, and its refit must not double the run (the best single model's refit is
    paid in any case)."""
    pool = pool_of(trials, oof, maximize)
    if len(pool) < 2:
        return None
    best_single = score(oof[pool[0]])
    chosen = [pool[0]]
    total = oof[pool[0]].astype(float).copy()
    current = best_single

    def affordable(n: int) -> bool:
        if n in chosen or cost is None or max_cost is None:
            return True
        return sum(cost.get(m, 0.0) for m in set(chosen)) + cost.get(n, 0.0) <= max_cost

    for _ in range(MAX_ROUNDS):
        tried = [(score((total + oof[n]) / (len(chosen) + 1)), n) for n in pool if affordable(n)]
        value, number = max(tried, key=lambda item: item[0]) if maximize else min(tried, key=lambda item: item[0])
        if not _better(value, current, maximize):
            break
        chosen.append(number)
        total += oof[number]
        current = value
    counts = Counter(chosen)
    if len(counts) < 2:
        return None
    margin = max(abs(best_single) * min_relative_gain, 1e-9)
    if not _better(current, best_single + (margin if maximize else -margin), maximize):
        return None
    members = list(counts)
    return Blend(members=members, weights=[counts[n] / len(chosen) for n in members], score=float(current),
                 best_single=float(best_single))
