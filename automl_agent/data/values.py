"""Cell values as spreadsheets and exports write them, made into the values they mean.

Every column of a delimited file arrives as text; this module decides, column by column, what it holds: numbers
(with thousands separators, currency and percent signs, a decimal comma, placeholders for missing), booleans in any
spelling, or labels (stray whitespace and case variants merged). Each decision that changes a value is a note the
run shows and records, so nothing is converted in silence.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd

# written for "no value" by people and by tools; read as missing in every column
MISSING_EVERYWHERE = {"", "na", "n/a", "nan", "null", "#n/a", "#na", "n.a.", "#null!", "#div/0!", "#value!", "#ref!",
                      "#num!", "<na>", "nat", "(blank)", "(empty)", "(null)", "(none)", "(missing)", "<blank>",
                      "<empty>", "<null>", "#name?", "#null"}
# read as missing only in a column that otherwise holds numbers ("None" or "-" may be a real category elsewhere)
MISSING_AMONG_NUMBERS = {"-", "--", "---", "?", "??", "none", "missing", "unknown", "nil", ".", "x", "inf", "-inf",
                         "+inf", "infinity", "-infinity", "+infinity", "∞", "-∞"}
BOOLEAN_FAMILIES = [("yes", "no"), ("true", "false"), ("y", "n"), ("t", "f"), ("1", "0"), ("1.0", "0.0"),
                    ("ja", "nein"), ("oui", "non"), ("si", "no"), ("sí", "no")]
# what a label column holds where nobody knew the answer: never a class to learn
PLACEHOLDER_LABELS = ((MISSING_AMONG_NUMBERS - {"x", "none"}) | (MISSING_EVERYWHERE - {""})
                      | {"unknown", "n.a", "na.", "not known", "tbd"})
_TRUE = {pair[0] for pair in BOOLEAN_FAMILIES}
_FALSE = {pair[1] for pair in BOOLEAN_FAMILIES}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CURRENCY = "$€£¥₹₽₩¢"
_CURRENCY_CODES = ("USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|CNY|HKD|SGD|INR|KRW|SEK|NOK|DKK|PLN|CZK|HUF|RON|RUB|TRY|BRL|MXN|"
                   "ZAR|ILS|AED|SAR")
_SPACES = re.compile(r"[\s\u00a0\u202f\u2009'\u2019\u02bc]")  # a thousands separator may be a (thin, no-break) space or an apostrophe
_POINT_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d*)?([eE][+-]?\d+)?$|^[+-]?\.\d+([eE][+-]?\d+)?$")
_COMMA_NUMBER = re.compile(r"^[+-]?(\d{1,3}(\.\d{3})+|\d+)(,\d*)?$|^[+-]?,\d+$")
NUMERIC_SHARE = 0.95
_TEXT_DTYPE_IS_STR = str(pd.read_csv(io.StringIO("a\nx"))["a"].dtype) == "str"  # a text column becomes numbers when this share of its values reads as numbers


def clean_label(value: str) -> str:
    """One text value as `clean_text` leaves it: what a served model receives must read as its training rows did."""
    return _CONTROL.sub("", value).strip()


def clean_text(series: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Control characters removed and whitespace stripped; which cells changed."""
    text = series.astype("string")
    cleaned = text.str.replace(_CONTROL.pattern, "", regex=True).str.strip()
    return cleaned, ((cleaned != text) & text.notna()).fillna(False).astype(bool)


def _count(mask: pd.Series, weights: pd.Series) -> int:
    """How many rows of the column a mask over its distinct values stands for."""
    hit = mask.fillna(False).astype(bool).to_numpy()
    return int(weights.loc[mask.index[hit]].sum())


def _share(mask: pd.Series, weights: pd.Series) -> float:
    total = int(weights.loc[mask.index].sum())
    return _count(mask, weights) / total if total else 0.0


def _missing_mask(lower: pd.Series, markers: set[str]) -> pd.Series:
    return lower.isin(markers) | lower.isna()


def _as_numbers(text: pd.Series, decimal: str, weights: pd.Series) -> tuple[pd.Series, dict[str, int]]:
    """Numbers read from text written with `decimal` as the decimal mark; what was stripped, counted in rows."""
    stripped = text.str.replace(_SPACES.pattern, "", regex=True)
    negative = stripped.str.fullmatch(r"\(.*\)")
    signs = {"currency": _count(stripped.str.contains(f"[{_CURRENCY}]", regex=True), weights),
             "percent": _count(stripped.str.endswith("%"), weights),
             "parentheses": _count(negative, weights)}
    stripped = stripped.str.strip("()").str.replace(f"[{_CURRENCY}%]", "", regex=True)
    stripped = stripped.str.replace(rf"^([+-]?)(?:{_CURRENCY_CODES})", r"\1", regex=True)  # USD 12, EUR-3 (not INV-5)
    pattern = _POINT_NUMBER if decimal == "." else _COMMA_NUMBER
    valid = stripped.str.fullmatch(pattern.pattern).fillna(False).astype(bool)
    grouped = stripped.str.contains("," if decimal == "." else r"\.", regex=True) | text.str.contains(
        r"\d[\s\u00a0\u202f'\u2019\u02bc]\d", regex=True)
    signs["thousands"] = _count(valid & grouped, weights)
    if decimal == ".":
        plain = stripped.str.replace(",", "", regex=False)
    else:
        plain = stripped.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
    numbers = pd.to_numeric(plain.where(valid), errors="coerce")
    numbers = numbers.where(~negative.fillna(False).astype(bool), -numbers)
    return numbers, signs


def normalize_column(series: pd.Series, decimal: str = ".") -> tuple[pd.Series, list[str]]:
    """One column of text made into what it holds, with a note for each change a user should know of.

    Each distinct value is read once and the result spread back to the rows (a column of a million rows holds a few
    thousand distinct values); every count a note gives is a count of rows."""
    codes, distinct = pd.factorize(series, use_na_sentinel=True)
    slots = len(distinct)
    has_missing = bool((codes < 0).any())
    values = pd.Series(distinct, name=series.name).reindex(range(slots + has_missing))
    weights = pd.Series(np.bincount(np.where(codes < 0, slots, codes), minlength=slots + has_missing), index=values.index)
    read, notes = _read_values(values, weights, decimal)
    spread = read.take(np.where(codes < 0, slots, codes)) if len(read) else read
    return spread.set_axis(series.index).rename(series.name), notes


def _read_values(values: pd.Series, weights: pd.Series, decimal: str) -> tuple[pd.Series, list[str]]:
    """`normalize_column` on a column's distinct values; `weights`: how many rows hold each."""
    name = values.name
    notes: list[str] = []
    text, changed_cells = clean_text(values)
    changed = _count(changed_cells, weights)
    lower = text.str.lower()
    missing = _missing_mask(lower, MISSING_EVERYWHERE)
    present = text[~missing]
    if present.empty:
        return pd.Series(np.nan, index=values.index, name=name, dtype="float64"), notes

    boolean = _as_boolean(text, lower, missing, weights)
    if boolean is not None:
        read, note = boolean
        if note:
            notes.append(note)
        return read.rename(name), notes

    loose_missing = _missing_mask(lower, MISSING_EVERYWHERE | MISSING_AMONG_NUMBERS)
    candidates = text[~loose_missing]
    plain_numbers = pd.to_numeric(candidates, errors="coerce") if decimal == "." else None
    # (a column whose every value reads as a number as it stands has no unit written after them)
    unit = None if plain_numbers is not None and not plain_numbers.isna().any() else _common_unit(candidates, weights)
    if unit is not None:
        number, written_unit = (part for _, part in candidates.str.extract(_WITH_UNIT.pattern, expand=True).items())
        candidates = number.where(written_unit.str.strip() == unit, candidates)
    if not _mostly_digits(candidates):
        numbers, signs = pd.Series(np.nan, index=candidates.index), {}
    else:
        if decimal != ".":
            numbers = candidates.iloc[:0]
        elif unit is None and plain_numbers is not None:
            numbers = plain_numbers
        else:
            numbers = pd.to_numeric(candidates, errors="coerce")
        signs = {"thousands": 0, "currency": 0, "percent": 0}
        if len(numbers) != len(candidates) or numbers.isna().any():
            numbers, signs = _as_numbers(candidates, decimal, weights)
    if len(candidates) and _share(numbers.notna(), weights) >= NUMERIC_SHARE:
        as_float = pd.Series(pd.array(numbers).to_numpy(dtype="float64", na_value=np.nan), index=numbers.index)
        result = as_float.reindex(values.index).replace([np.inf, -np.inf], np.nan).rename(name)
        placeholders = sorted(set(lower[loose_missing & ~missing].dropna()))
        unreadable = text[candidates.index[numbers.isna()]]
        what = [f"{signs['thousands']} with thousands separators"] if signs["thousands"] else []
        what += [f"{signs['currency']} with a currency sign"] if signs["currency"] else []
        what += [f"{signs['percent']} with a percent sign (read as the number before it)"] if signs["percent"] else []
        if unit is not None:
            what.append(f"{int(weights[candidates.index].sum())} followed by the unit {unit!r}")
        if what:
            notes.append(f"'{name}': numbers written as text ({', '.join(what)}) read as numbers")
        code = _sentinel(result, weights)
        if code is not None:
            hits = _count(result == code, weights)
            result = result.where(result != code)
            notes.append(f"'{name}': {hits} value(s) of {code:g}, a code for 'not measured' far outside the other "
                         "values, read as missing")
        if placeholders:
            notes.append(f"'{name}': {_count(loose_missing & ~missing, weights)} placeholder value(s) "
                         f"({', '.join(repr(p) for p in placeholders[:5])}) read as missing")
        if len(unreadable):
            examples = ", ".join(repr(v) for v in unreadable.unique()[:3])
            notes.append(f"'{name}': {int(weights[unreadable.index].sum())} value(s) that are not numbers ({examples}) "
                         "read as missing")
        written_as_integers = not candidates.str.contains(r"[.,eE]", regex=True).any()
        if written_as_integers and result.notna().all() and result.abs().max() < 2**53:
            result = result.astype("int64")
        return result, notes

    kept = text.where(~missing)
    merged = _merge_case_variants(kept, weights)
    if merged is not None:
        kept, note = merged
        notes.append(f"'{name}': {note}")
    if changed and kept.nunique(dropna=True) <= 50:
        notes.append(f"'{name}': stray spaces or control characters removed from {changed} value(s)")
    return _as_default_text(kept).rename(name), notes


_WITH_UNIT = re.compile(r"^([+-]?[\d.,'\u2019\u00a0\u202f ]*\d)\s*([^\d\s.,+\-%" + _CURRENCY + r"()]\S{0,11}(?: \S{1,11})?)$")


def _common_unit(candidates: pd.Series, weights: pd.Series) -> str | None:
    """The unit written after nearly every number of a column ('3.75 kg', '28 days', '162 kg/m³'), or None."""
    if not len(candidates) or not _mostly_digits(candidates):
        return None
    parts = candidates.str.extract(_WITH_UNIT.pattern, expand=True)
    units = parts[1].str.strip()
    counts = weights[units.index].groupby(units.to_numpy(dtype=object, na_value=None), dropna=True).sum()
    if counts.empty or counts.max() < NUMERIC_SHARE * weights[candidates.index].sum():
        return None
    unit = str(counts.idxmax())
    spaced = _share(candidates.str.contains(r"\d\s+\S", regex=True), weights) >= 0.5
    return unit if (spaced or len(unit) >= 2) and any(ch.isalpha() for ch in unit) else None


_SENTINELS = (-9, -99, -999, -9999, -99999, -999999, 999, 9999, 99999, 999999)


def _sentinel(values: pd.Series, weights: pd.Series) -> float | None:
    """A code written for 'not measured' in a column of numbers: -999 in a column of positive values, 9999 in a column
    whose other values stay below a fifth of it; repeated, and never most of the column (`weights`: rows per value)."""
    present = values.dropna()
    if not present.isin(_SENTINELS).any():
        return None
    rows = int(weights[present.index].sum())
    if rows < 20:
        return None
    for code in _SENTINELS:
        hits = present == code
        if _count(hits, weights) < 2 or _count(hits, weights) >= 0.5 * rows:
            continue
        others = present[~hits]
        if (code < 0 and (others >= 0).all()) or (code > 0 and others.abs().max() < code / 5):
            return float(code)
    return None


def _as_default_text(values: pd.Series) -> pd.Series:
    """Text in the dtype pandas itself gives text read from a CSV (str on pandas 3, object before)."""
    plain = values.astype(object).where(values.notna(), None)
    return plain.astype(pd.read_csv(io.StringIO("a\nx"))["a"].dtype) if _TEXT_DTYPE_IS_STR else plain


def _mostly_digits(text: pd.Series) -> bool:
    """Whether a column could hold numbers at all: most of a sample of its values contain a digit."""
    sample = text.head(200)
    return bool(len(sample)) and sample.str.contains(r"\d", regex=True).mean() >= 0.5


_MOST_BOOLEAN_SPELLINGS = 200


def _as_boolean(text: pd.Series, lower: pd.Series, missing: pd.Series,
                weights: pd.Series) -> tuple[pd.Series, str] | None:
    """A yes/no column in several spellings (TRUE, false, Yes, n, 1, 0) as one pair of values; None when it is not
    one, or when it is plain 0/1 numbers (those stay numbers)."""
    present = lower[~missing]
    if len(present) > _MOST_BOOLEAN_SPELLINGS:  # distinct values already: far more than a yes/no is ever written in
        return None
    values = set(present.unique())
    if not values or not values <= (_TRUE | _FALSE) or len(values) < 2:
        return None
    if values <= {"1", "0", "1.0", "0.0"}:
        return None
    spellings = set(text[~missing].unique())
    if len(spellings) == 2 and any(v in _TRUE for v in values) and any(v in _FALSE for v in values) \
            and not (values & {"1", "0"}):
        return None  # already one spelling per side: nothing to change
    truth = present.isin(_TRUE)
    # the family most of the values use names the pair: Yes/No, True/False, Y/N ...
    family_counts = {pair: _count(present.isin(pair), weights) for pair in BOOLEAN_FAMILIES[:4]}
    pair = max(family_counts, key=lambda p: family_counts[p])
    yes, no = (p.capitalize() if len(p) > 1 else p.upper() for p in pair)
    result = pd.Series(None, index=text.index, dtype=object)
    result[present.index[truth.to_numpy()]] = yes
    result[present.index[~truth.to_numpy()]] = no
    shown = ", ".join(sorted(spellings)[:8])
    return _as_default_text(result), f"'{text.name}': yes/no values in {len(spellings)} spellings ({shown}) read as {yes}/{no}"


def _merge_case_variants(values: pd.Series, weights: pd.Series) -> tuple[pd.Series, str] | None:
    """Labels that differ only in case ('yes', 'Yes') merged into their most frequent spelling (`weights`: rows per
    value); only in columns of few distinct values, where they are categories and not free text."""
    present = values.dropna()
    counts = weights[present.index].groupby(present.to_numpy(dtype=object)).sum().sort_values(ascending=False,
                                                                                          kind="stable")
    if len(counts) > 50 or len(counts) < 2:
        return None
    groups: dict[str, list[str]] = {}
    for spelling in counts.index:
        groups.setdefault(str(spelling).casefold(), []).append(spelling)
    variants = {s: spellings[0] for spellings in groups.values() if len(spellings) > 1 for s in spellings[1:]}
    if not variants:
        return None
    shown = ", ".join(f"{k!r} as {v!r}" for k, v in list(variants.items())[:4])
    return values.replace(variants), f"labels that differ only in case merged ({shown})"
