"""The `re` functions the instruction reader calls, over a compile cache large enough for it.

One instruction is read by some two thousand patterns, many of them built for its table (column names inside). The
standard library keeps 512 compiled patterns and drops the oldest when full, so it compiled most of the reader's
patterns again for every instruction: a fifth of the time a corpus took. The reader's modules import this module as
`re`; everything else about a call is the standard library's."""

from __future__ import annotations

import re as _re
from collections.abc import Callable, Iterator
from typing import Any
from functools import lru_cache
from re import DOTALL, IGNORECASE, MULTILINE, VERBOSE, I, M, Match, Pattern, S, X, error, escape

__all__ = ["DOTALL", "IGNORECASE", "MULTILINE", "VERBOSE", "I", "M", "Match", "Pattern", "S", "X", "error", "escape",
           "compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"]

_Pattern = str | Pattern[str]
_Replacement = str | Callable[[Match[str]], str]


@lru_cache(maxsize=16384)
def compile(pattern: _Pattern, flags: int = 0) -> Pattern[str]:  # noqa: A001 - the name re gives it
    return _re.compile(pattern, flags)


def search(pattern: _Pattern, string: str, flags: int = 0) -> Match[str] | None:
    return compile(pattern, flags).search(string)


def match(pattern: _Pattern, string: str, flags: int = 0) -> Match[str] | None:
    return compile(pattern, flags).match(string)


def fullmatch(pattern: _Pattern, string: str, flags: int = 0) -> Match[str] | None:
    return compile(pattern, flags).fullmatch(string)


def sub(pattern: _Pattern, repl: _Replacement, string: str, count: int = 0, flags: int = 0) -> str:
    return compile(pattern, flags).sub(repl, string, count)


def subn(pattern: _Pattern, repl: _Replacement, string: str, count: int = 0, flags: int = 0) -> tuple[str, int]:
    return compile(pattern, flags).subn(repl, string, count)


def split(pattern: _Pattern, string: str, maxsplit: int = 0, flags: int = 0) -> list[str | Any]:
    return compile(pattern, flags).split(string, maxsplit)


def findall(pattern: _Pattern, string: str, flags: int = 0) -> list[Any]:
    return compile(pattern, flags).findall(string)


def finditer(pattern: _Pattern, string: str, flags: int = 0) -> Iterator[Match[str]]:
    return compile(pattern, flags).finditer(string)
