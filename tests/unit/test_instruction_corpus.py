"""The instruction corpus (automl_agent/benchmark/instructions.yaml, 251 instructions in many voices) through INIT
with the offline brain: request check, target, task, metric and constraints, no training.

Floors are what the current understanding measures (benchmarks/results/understanding_offline.md); a change that
understands fewer instructions, or trains on a column nobody asked for more often, fails here."""

from __future__ import annotations

import pytest

from automl_agent.benchmark.understanding import load_cases, run_corpus, summary_table



@pytest.fixture(scope="module")
def results():
    return run_corpus("offline")


def test_the_corpus_is_large_and_varied():
    cases = load_cases()
    assert len(cases) >= 200 and len({c["id"] for c in cases}) == len(cases)
    assert len({c["class"] for c in cases}) >= 12
    assert sum(c["expect"] == "ask" for c in cases) >= 8 and sum(c["expect"] == "refuse" for c in cases) >= 10


def test_most_instructions_are_understood_exactly(results):
    overall = summary_table(results)[-1]
    assert overall["share"] >= 0.93, [r.id for r in results if not r.understood]


def test_a_wrong_target_is_almost_never_trained_silently(results):
    silent = [r.id for r in results if r.silent_wrong_target]
    assert len(silent) <= 1, silent


def test_requests_that_are_not_learning_tasks_are_refused_and_unclear_targets_asked(results):
    by_class = {row["phrasing"]: row for row in summary_table(results)}
    assert by_class["refuse"]["share"] == 1.0
    assert all(r.outcome != "ok" for r in results if r.phrasing == "ask")
