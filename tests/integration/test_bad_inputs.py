"""Every case of the bad-input table (tests/bad_inputs.py, docs/bad-inputs.md), run through the CLI as a user runs
it: the exact message, the exit code, no traceback, and a run record that keeps the message."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bad_inputs import CASES, Case, render

pytestmark = pytest.mark.integration
DOCS = Path(__file__).resolve().parents[2] / "docs" / "bad-inputs.md"


def _expected(case: Case, data: Path | None, folder: Path) -> str:
    return case.message.replace("{data}", str(data)).replace("{folder}", str(folder))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_gets_its_message(case: Case, run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOML_AGENT_MEMORY_MB", "1" if case.id == "too-big" else "")
    data = case.build(tmp_path)
    args = ["run", case.instruction, *(["--data", str(data)] if data is not None else []), "--budget", "3",
            "--plans", "1", *case.extra_args]
    code, record, err = run_cli(*args)
    assert "Traceback" not in err, err[-3000:]
    if not case.record:  # refused as an option, before any run
        assert record is None and (code, err.strip()) == (case.code, "error: " + _expected(case, data, tmp_path))
        return
    assert record is not None, f"no run record kept; stderr: {err[-2000:]}"
    assert (code, record.message) == (case.code, _expected(case, data, tmp_path)), err[-2000:]
    if case.also_in_output:
        assert case.also_in_output in err
    if case.code == 2:
        assert record.status == "rejected" and record.message.splitlines()[0] in err


def test_the_docs_table_is_written_from_the_cases():
    assert DOCS.read_text() == render(), "run: .venv/bin/python -m tests.bad_inputs > docs/bad-inputs.md"
