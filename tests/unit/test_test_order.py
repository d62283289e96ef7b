"""The order `make test` hands out its files: measured seconds per file, longest first."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.conftest import FILE_SECONDS

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("test_file_seconds", ROOT / "benchmarks" / "test_file_seconds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seconds_per_file_are_summed_from_a_durations_report():
    report = """============================= slowest durations =============================
301.49s call     tests/integration/test_bench.py::test_quick_dev_suite
83.18s setup    tests/e2e/test_cli.py::test_run_prints_stages[x-y]
10.50s call     tests/e2e/test_cli.py::test_a_dry_run
0.40s teardown tests/unit/test_a.py::test_b
"""
    assert _script().file_seconds(report) == {"tests/integration/test_bench.py": 301, "tests/e2e/test_cli.py": 94}


def test_every_file_measured_still_exists():
    # a file renamed or split without refreshing the measure would silently lose its place at the front
    missing = [name for name in FILE_SECONDS if not (ROOT / name).is_file()]
    assert not missing, f"{missing}: run benchmarks/test_file_seconds.py on a fresh --durations=0 report"
