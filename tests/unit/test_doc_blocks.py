"""The examples marked `<!-- doc-test: NAME -->` in README.md and docs/howto are each run by a test."""

from __future__ import annotations

from pathlib import Path

from tests.doc_blocks import marked_blocks


def test_every_marked_example_is_run_by_a_test():
    blocks = marked_blocks()
    assert "serving-call" in blocks
    tests = "".join(p.read_text(encoding="utf-8") for p in Path(__file__).resolve().parents[1].rglob("test_*.py"))
    unused = [name for name in blocks if f'"{name}"' not in tests.replace(f'"{name}" in blocks', "")]
    assert not unused, f"doc-test blocks no test runs: {unused}"
