"""What of the reader's checks is no case of tests/unit/reader_cases/*.yaml: its `re` (automl_agent.agents.
understanding.rx) answers as the standard library does, over its own cache; and the sandbox measures the peak memory
of the script it runs (a memory limit an instruction sets is checked against it)."""

from __future__ import annotations

import re

import pytest

from automl_agent.agents.understanding import rx
from automl_agent.sandbox import run_script

TEXT = "Predict Hgt97 from Hgt96, Diam96 and Deer95; leave out Row and Col."


@pytest.mark.parametrize("pattern,flags", [(r"\b[A-Z][a-z]+\d+\b", 0), (r"\bleave\s+out\b", re.I), (r"(\w+)(\d\d)", 0)])
def test_each_function_gives_what_re_gives(pattern, flags):
    assert rx.search(pattern, TEXT, flags).span() == re.search(pattern, TEXT, flags).span()
    assert rx.findall(pattern, TEXT, flags) == re.findall(pattern, TEXT, flags)
    assert [m.span() for m in rx.finditer(pattern, TEXT, flags)] == [
        m.span() for m in re.finditer(pattern, TEXT, flags)
    ]
    assert rx.split(pattern, TEXT, 1, flags) == re.split(pattern, TEXT, maxsplit=1, flags=flags)
    assert rx.sub(pattern, "X", TEXT, 1, flags) == re.sub(pattern, "X", TEXT, count=1, flags=flags)
    assert rx.sub(pattern, lambda m: m.group(0).upper(), TEXT, flags=flags) == re.sub(
        pattern, lambda m: m.group(0).upper(), TEXT, flags=flags
    )
    assert rx.subn(pattern, "", TEXT, flags=flags) == re.subn(pattern, "", TEXT, flags=flags)
    assert rx.match(r"Predict", TEXT) and rx.fullmatch(r".*Col\.", TEXT) and not rx.match(pattern, "")


def test_a_pattern_is_compiled_once_however_many_others_come_between():
    first = rx.compile(r"\bHgt(\d\d)\b")
    for i in range(2000):  # more than the standard library's 512
        rx.compile(rf"\bcolumn_{i}\b")
    assert rx.compile(r"\bHgt(\d\d)\b") is first
    assert rx.compile(r"x", rx.I) is not rx.compile(r"x")
    with pytest.raises(rx.error):
        rx.compile(r"(unclosed")


def test_the_sandbox_measures_the_peak_memory_of_a_script(tmp_path):
    script = tmp_path / "hold.py"
    script.write_text("import numpy as np\nblock = np.ones(40_000_000)\nprint(block.sum())\n")  # 320 MB
    outcome = run_script(script, tmp_path / "work", timeout_s=60)
    assert outcome.returncode == 0, outcome.tail
    assert outcome.peak_memory_mb is not None and 320 < outcome.peak_memory_mb < 1000, outcome.peak_memory_mb
    assert not (tmp_path / "work" / ".peak_memory_mb").exists()
