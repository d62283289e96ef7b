"""Columns made from another by a known change and named by a prefix or a suffix: lsalary is the log of salary, gcpi
the growth of cpi, stndfnl the final exam standardized, hssa the housing starts seasonally adjusted. One place for the
prefixes, the suffixes and the words that ask for each change, so the target, the inputs and the audit read them
alike."""

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
    suffixes: tuple[str, ...] = ()  # a change written after the name: hssa, gdp_sa


# 'seasonally adjusted', 'deseasonalised', 'SA'; French, Spanish, German forms too (a column name is often English)
_SEASONALLY_ADJUSTED = (r"(?:seasonally[- ]adjusted|de-?seasonali[sz]ed|\bsa\b|desestacionalizad[ao]s?|"
                        r"corrig[ée]+e?s?\s+des\s+variations\s+saisonni[èe]res|\bcvs\b|saisonbereinigt\w*)")
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
    Transform("seasonally adjusted", (), _SEASONALLY_ADJUSTED,
              _SEASONALLY_ADJUSTED + r"\s+(?:[a-z]+\s+)?$",
              r"^(?:\s+[a-z]+){0,2}\s*,?\s*(?:\(\s*)?" + _SEASONALLY_ADJUSTED,
              suffixes=("_sa", ".sa", "sa")),
)
LOG, GROWTH, STANDARDIZED, SEASONALLY_ADJUSTED = TRANSFORMS
# words just before a change that say it is not wanted: 'the one that is NOT seasonally adjusted', 'don't feed it the
# seasonally adjusted column', 'the non-adjusted', 'without the log'
_REFUSED_BEFORE = re.compile(r"(?:\bnot|n't|\bnon-?|\bno|\bwithout|\bexcept|\bexclud\w*|\bdrop|\bignore|\bnor|"
                             r"\bneither|\brather than|\binstead of)(?:\s+\w+){0,3}\s*[- ]?$")


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
        if any(low.endswith(suffix) and low.removesuffix(suffix) == base for suffix in transform.suffixes):
            return transform
    return None


def asked_at(transform: Transform, text: str, start: int, end: int) -> bool:
    """Whether the words around a mention of a column (text[start:end]) ask for its changed form."""
    return bool(re.search(transform.before, text[:start])
                or (transform.after is not None and re.search(transform.after, text[end:end + 80])))


def asked(transform: Transform, text: str) -> bool:
    """Whether the text asks for the change anywhere, in words not said to be unwanted ('the raw series, the one
    that is not seasonally adjusted')."""
    return any(not _REFUSED_BEFORE.search(text[max(0, m.start() - 40):m.start()])
               for m in re.finditer(transform.asked, text))
