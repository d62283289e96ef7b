"""The reader's `re` (automl_agent.agents.understanding.rx) answers as the standard library does, over its own cache."""

from __future__ import annotations

import re

import pytest

from automl_agent.agents.understanding import rx

TEXT = "Predict Hgt97 from Hgt96, Diam96 and Deer95; leave out Row and Col."


@pytest.mark.parametrize("pattern,flags", [(r"\b[A-Z][a-z]+\d+\b", 0), (r"\bleave\s+out\b", re.I), (r"(\w+)(\d\d)", 0)])
def test_each_function_gives_what_re_gives(pattern, flags):
    assert rx.search(pattern, TEXT, flags).span() == re.search(pattern, TEXT, flags).span()
    assert rx.findall(pattern, TEXT, flags) == re.findall(pattern, TEXT, flags)
    assert [m.span() for m in rx.finditer(pattern, TEXT, flags)] == [m.span() for m in re.finditer(pattern, TEXT, flags)]
    assert rx.split(pattern, TEXT, 1, flags) == re.split(pattern, TEXT, maxsplit=1, flags=flags)
    assert rx.sub(pattern, "X", TEXT, 1, flags) == re.sub(pattern, "X", TEXT, count=1, flags=flags)
    assert rx.sub(pattern, lambda m: m.group(0).upper(), TEXT, flags=flags) == re.sub(
        pattern, lambda m: m.group(0).upper(), TEXT, flags=flags)
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
