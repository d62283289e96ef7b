"""Columns made from another by a known change and named by a prefix: lsalary is the log of salary, gcpi the growth
of cpi, stndfnl the final exam standardized. One place for the prefixes and for the words that ask for each change,
so the target, the inputs and the audit read them alike."""

from __future__ import annotations

from dataclasses import dataclass

from . import rx as re
from .words import shortens

# 'the log of', 'the logarithm of the', 'ln', 'the logged'
_LOG = r"(?:log(?:arithm)?s?|ln|logged|natural\s+log)"
_OWNER = r"(?:the\s+|an?\s+|its\s+|their\s+|his\s+|her\s+|each\s+)?"


@dataclass(frozen=True)
class Transform:
    kind: str
    prefixes: tuple[str, ...]
    asked: str  # words anywhere in the text that ask for the change
    before: str  # words right before a mention of the plain column that ask for its changed form ('the log of the')
    after: str | None = None  # words right after it that do ('final exam, measured in standard deviations')


TRANSFORMS = (
    Transform("log", ("log_", "ln_", "log", "ln", "l_", "l"), rf"\b{_LOG}\b",
              rf"\b{_LOG}\s+(?:of\s+)?{_OWNER}(?:[a-z]+\s+)?$"),
    Transform("growth", ("growth_", "chg_", "diff_", "ch", "g", "d"),
              r"\b(?:grow\w*|growth|how fast|chang(?:e|es|ed|ing)|(?:month|year|quarter|week) over "
              r"(?:month|year|quarter|week)|rate of change|increases?|decreases?)\b",
              r"\b(?:growth|change|changes|rate of change)\s+(?:of|in)\s+" + _OWNER + r"(?:[a-z]+\s+)?$"),
    Transform("standardized", ("zscore_", "std_", "z_", "stnd", "std", "zs", "z"),
              r"\bstandardi[sz](?:ed|ation)\b|\bz[- ]?scores?\b|\bstandard\s+(?:deviations?|units|scores?)\b",
              r"\b(?:standardi[sz]ed|z[- ]?scored)\s+" + _OWNER + r"(?:[a-z]+\s+)?$",
              r"^(?:\s+[a-z]+){0,2}\s*,?\s*(?:\(\s*)?(?:measured\s+|expressed\s+|given\s+|scaled\s+|written\s+)?"
              r"(?:in|as)\s+(?:a\s+|the\s+)?(?:standard\s+deviations?|standard\s+units|z[- ]?scores?|"
              r"standardi[sz]ed\s+(?:form|units|scale))"),
)
LOG, GROWTH, STANDARDIZED = TRANSFORMS


def transform_of(name: str, plain: str) -> Transform | None:
    """The change that makes column `name` from column `plain`: the log for lsalary from salary, the standardized
    form for stndfnl from final (the rest of a name may be written without its vowels)."""
    low, base = name.lower(), plain.lower()
    for transform in TRANSFORMS:
        for prefix in transform.prefixes:
            rest = low.removeprefix(prefix)
            if rest == low or not rest:
                continue
            if rest == base or (len(rest) >= 3 and rest[-1] == base[-1] and shortens(rest, base)):
                return transform
    return None


def asked_at(transform: Transform, text: str, start: int, end: int) -> bool:
    """Whether the words around a mention of a column (text[start:end]) ask for its changed form."""
    return bool(re.search(transform.before, text[:start])
                or (transform.after is not None and re.search(transform.after, text[end:end + 80])))


def asked(transform: Transform, text: str) -> bool:
    return bool(re.search(transform.asked, text))
