"""Which column the user wants predicted, how sure we are, and why.

Evidence, strongest first: --target; a column named outright ("target: X", "the X column", `X`); the column's name
in the instruction (any case, inflected, plural, typo'd, or as its words: "unit price" -> UnitPrice_EUR); a word of
the same meaning ("quit" -> left_company, via knowledge/concepts.json); the column's values ("won or lost" ->
outcome); a sentence-encoder match of the phrase after the verb. Mentions inside "from ...", "using ...", "given ..."
are inputs; mentions after "not", "without", "don't" are excluded. No evidence, or two columns with equal evidence:
the decision is to ask, with the best candidates, never a silent guess.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from ..contracts import ColumnProfile, DataProfile
from .words import STOPWORDS, Token, name_parts, stem, tokens

NOT_TARGETS = {"identifier", "constant", "text", "datetime", "image"}
VALUE_NOISE = {"yes", "no", "true", "false", "y", "n", "none", "other", "nan", "null", "0", "1", "unknown", "na"}
TARGET_VERBS = (r"predict|predicting|forecast|estimate|classify|detect|flag|spot|identify|tell|catch|filter|find|"
                r"model|regress|guess|determine|figure out|know|label|sort|score|learn|infer|output|anticipate|"
                r"project|calculate|compute|work out|decide|recognise|recognize|foresee|distinguish")
FEATURE_MARKERS = r"from|using|uses|use|based on|given|with|by|on the basis of|according to"
NEGATIONS = r"not|don't|dont|do not|doesn't|never|without|except|excluding|instead of|rather than|ignore|ignoring|no"
CONCEPTS_PATH = Path(__file__).resolve().parents[2] / "knowledge" / "concepts.json"

Confidence = Literal["given", "high", "medium", "low"]
# decisions resting on what the instruction says about a column (not on the data alone)
NAMED = frozenset({"flag", "explicit", "name", "words", "concept", "values"})


class TargetDecision(BaseModel):
    """What the instruction and the data say about the target column."""

    column: str | None = Field(description="the chosen column; None when the decision is to ask or none is needed")
    confidence: Confidence
    how: str = Field(description="flag, explicit, name, words, concept, values, meaning, only, filename, graph or none")
    reason: str = Field(description="why, in the user's words")
    candidates: list[str] = Field(default_factory=list, description="best columns when asking")
    ask: bool = False
    scores: dict[str, float] = Field(default_factory=dict)


@dataclass
class _Evidence:
    column: str
    score: float
    how: str
    words: str
    start: int
    roles: set[str] = field(default_factory=set)


@lru_cache(maxsize=1)
def concept_groups() -> list[frozenset[str]]:
    groups = json.loads(CONCEPTS_PATH.read_text())["groups"]
    return [frozenset(stem(w) if " " not in w else w for w in group) for group in groups]


def eligible_columns(profile: DataProfile) -> list[ColumnProfile]:
    if profile.graph is not None:
        return [c for c in profile.columns if c.name in profile.target_candidates[:1]]
    return [c for c in profile.columns if c.kind not in NOT_TARGETS]


def _word_matches(token: Token, word: str, word_stem: str) -> bool:
    if token.stem == word_stem or token.text == word:
        return True
    if len(word_stem) >= 4 and len(token.stem) >= 4 and (token.stem.startswith(word_stem) or word_stem.startswith(token.stem)):
        return True
    # a typo keeps the first letter and most of the rest ('chrun', 'dimonds'); 'height' is not 'weight'
    return (len(word) >= 5 and len(token.text) >= 5 and token.text[0] == word[0]
            and fuzz.ratio(token.text, word) >= 80)


def _concept_match(word_stem: str, toks: list[Token], text: str) -> Token | None:
    for group in concept_groups():
        if word_stem not in group:
            continue
        for t in toks:
            if t.stem in group and t.stem != word_stem:
                return t
        for phrase in (p for p in group if " " in p):
            if phrase in text:
                return Token(phrase, phrase, text.index(phrase))
    return None


def _spans(text: str, pattern: str, length: int, stops: str = r"[.;?!]") -> list[tuple[int, int]]:
    """Character spans that start after each match of pattern and run for `length` words (stopping at . ; ? !)."""
    spans = []
    for m in re.finditer(rf"\b(?:{pattern})\b", text):
        rest = text[m.end():]
        stop = re.search(rf"{stops}|\b(?:and then|but)\b", rest)
        rest = rest[: stop.start()] if stop else rest
        words = list(re.finditer(r"\S+", rest))[:length]
        end = m.end() + (words[-1].end() if words else 0)
        spans.append((m.end(), end))
    return spans


def _within(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def _roles(text: str) -> dict[str, list[tuple[int, int]]]:
    target = _spans(text, TARGET_VERBS, 6, stops=rf"[.;?!]|\b(?:{FEATURE_MARKERS})\b")
    features = []
    for a, b in _spans(text, FEATURE_MARKERS, 12):
        # a feature clause ends where the target clause begins ("from bill length, predict the species")
        nxt = re.search(rf"\b(?:{TARGET_VERBS})\b", text[a:b])
        features.append((a, a + nxt.start() if nxt else b))
    # "X and Y go in; Z comes out", "X as inputs"
    for m in re.finditer(r"([^.;]*?)\b(?:go in|goes in|are the inputs|as inputs?|as features?|are inputs|are features)\b", text):
        features.append((m.start(1), m.end(1)))
    negated = _spans(text, NEGATIONS, 6, stops=r"[.;?!,()]")
    return {"target": target, "features": features, "negated": negated}


def _values(column: ColumnProfile) -> list[str]:
    return [v for v in column.examples if v.strip().lower() not in VALUE_NOISE and len(v.strip()) >= 2
            and not re.fullmatch(r"[\d.,\-]+", v.strip())]


def _value_hits(column: ColumnProfile, text: str, toks: list[Token]) -> list[tuple[str, int]]:
    hits = []
    spaced = text.replace("-", " ")
    for value in _values(column):
        v = value.lower().replace("-", " ")
        m = re.search(rf"(?<![\w]){re.escape(v)}(?![\w])", spaced)
        if m:
            hits.append((value, m.start()))
            continue
        if " " not in v:
            vs = stem(v)
            t = next((t for t in toks if t.stem == vs or (len(vs) >= 4 and t.stem.startswith(vs))), None)
            if t is not None:
                hits.append((value, t.start))
    return hits


def _evidence(column: ColumnProfile, text: str, toks: list[Token]) -> _Evidence | None:
    name = column.name.lower()
    m = re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text)
    if m and (len(name) >= 3 or not name.isalpha()):
        return _Evidence(column.name, 1.0, "name", column.name, m.start())
    if column.name.isupper() and 2 <= len(name) <= 5:  # 'OT' is what 'oil temperature' abbreviates
        content = [t for t in toks if len(t.text) >= 3 and t.text not in STOPWORDS]
        for i in range(len(content) - len(name) + 1):
            run = content[i:i + len(name)]
            if "".join(t.text[0] for t in run) == name:
                return _Evidence(column.name, 0.8, "words", " ".join(t.text for t in run), run[0].start)
    parts = name_parts(column.name)
    covered, by_concept, hits = 0, False, []
    for word, word_stem in zip(parts.words, parts.stems):
        hit = next((t for t in toks if _word_matches(t, word, word_stem)), None)
        if hit is None:
            hit = _concept_match(word_stem, toks, text)
            by_concept = by_concept or hit is not None
        if hit is not None:
            covered += 1
            hits.append(hit)
    best: _Evidence | None = None
    if covered:
        fraction = covered / len(parts.words)
        # the words of a multi-word name count together only where they stand together ('unit price', 'price per
        # unit'); scattered over the sentence they are weak evidence
        positions = sorted(h.start for h in hits)
        together = len(hits) < 2 or positions[-1] - positions[0] <= 12 * len(hits) + 6
        if fraction == 1 and together:
            score = 0.75 if by_concept else 0.9
        else:
            score = (0.5 if by_concept else 0.6) * (fraction if together else 0.5)
        anchor = positions[-1] if together else positions[0]
        best = _Evidence(column.name, score, "concept" if by_concept else "words", " ".join(h.text for h in hits), anchor)
    if column.kind in {"categorical", "boolean"} or column.n_unique <= 20:
        hits = _value_hits(column, text, toks)
        if hits:
            if len(hits) == 1 and len(hits[0][0]) < 3:
                return best
            score = 0.85 if len(hits) >= 2 else 0.25
            if best is None or score > best.score:
                best = _Evidence(column.name, score, "values", " / ".join(v for v, _ in hits), min(p for _, p in hits))
    return best


def _explicit(text: str, columns: list[ColumnProfile]) -> ColumnProfile | None:
    """'target: X', 'label column X', 'y = X', 'the X column', 'X as the label', quoted or backticked names."""
    for column in sorted(columns, key=lambda c: -len(c.name)):
        n = re.escape(column.name.lower())
        patterns = (
            rf"\b(?:target|label|outcome variable|dependent variable|response|y)\s*(?:column|variable|field)?\s*(?:is|=|:|-)?\s*[`'\"]?{n}(?![\w])",
            rf"\b(?:the\s+)?[`'\"]?{n}[`'\"]?\s+(?:column|field|variable)\s+(?:as|is)\s+(?:the\s+)?(?:label|target|thing to predict|output)",
            rf"\b(?:predict|model|forecast|regression on|classify)\s+(?:the\s+)?(?:column\s+)?[`'\"]{n}[`'\"]",
            rf"\bcolumn\s+[`'\"]?{n}(?![\w])",
            rf"[`]{n}[`]",
        )
        if any(re.search(p, text) for p in patterns):
            return column
    return None


def _ranked(evidence: list[_Evidence]) -> list[_Evidence]:
    return sorted(evidence, key=lambda e: (-e.score, "target" not in e.roles, e.start))


def decide_target(instruction: str, profile: DataProfile, flag: str | None = None,
                  semantic=None) -> TargetDecision:
    """The target decision for this instruction on this data. `semantic(phrase, descriptions) -> similarities`
    is the sentence encoder, used only when words say nothing; None to skip it."""
    columns = eligible_columns(profile)
    if flag is not None:
        return TargetDecision(column=flag, confidence="given", how="flag", reason="--target")
    text = instruction.lower()
    toks = tokens(text)
    if profile.graph is not None and columns:
        named = _explicit(text, [c for c in profile.columns if c.name in profile.target_candidates]) or next(
            (c for c in profile.columns if c.name in profile.target_candidates
             and (e := _evidence(c, text, toks)) is not None and e.score >= 0.7), None)
        label = named.name if named is not None else columns[0].name
        return TargetDecision(column=label, confidence="high", how="name" if named is not None else "graph",
                              reason=f"the instruction says {label!r}" if named is not None
                              else f"the graph's node labels ({label!r})")
    explicit = _explicit(text, columns)
    if explicit is not None:
        return TargetDecision(column=explicit.name, confidence="high", how="explicit",
                              reason=f"the instruction names the column {explicit.name!r}")
    roles = _roles(text)
    found: list[_Evidence] = []
    excluded: list[str] = []
    for column in columns:
        e = _evidence(column, text, toks)
        if e is None:
            continue
        if _within(e.start, roles["negated"]):
            excluded.append(column.name)
            continue
        if _within(e.start, roles["features"]):
            e.roles.add("feature")
            e.score *= 0.35
        elif _within(e.start, roles["target"]):
            e.roles.add("target")
        found.append(e)
    ranked = _ranked(found)
    scores = {e.column: round(e.score, 3) for e in ranked}
    if ranked and ranked[0].score >= 0.25:
        top = ranked[0]
        rivals = [e for e in ranked[1:] if e.score >= top.score * 0.75 and not (
            "target" in top.roles and "target" not in e.roles)]
        if not rivals:
            confidence: Confidence = "high" if top.score >= 0.7 else "medium"
            return TargetDecision(column=top.column, confidence=confidence, how=top.how, scores=scores,
                                  reason=_reason(top))
        tied = [top.column] + [e.column for e in rivals]
        return TargetDecision(column=None, confidence="low", how="tie", ask=True, candidates=tied[:4], scores=scores,
                              reason=f"the instruction fits several columns equally ({', '.join(tied[:4])})")
    remaining = [c for c in columns if c.name not in excluded]
    if len(remaining) == 1:
        return TargetDecision(column=remaining[0].name, confidence="high", how="only", scores=scores,
                              reason=f"{remaining[0].name!r} is the only column a model can predict here")
    from_file = _filename_match(profile.path, remaining)
    if from_file is not None:
        return TargetDecision(column=from_file, confidence="medium", how="filename", scores=scores,
                              reason=f"the data file is named {Path(profile.path).name!r}")
    if semantic is not None and remaining:
        meant = _meaning(text, remaining, semantic)
        if meant is not None:
            column, similarity = meant
            return TargetDecision(column=column, confidence="medium", how="meaning", scores=scores,
                                  reason=f"closest in meaning to what the instruction asks for (similarity {similarity:.2f})")
    ordered = [c for c in profile.target_candidates if c in {r.name for r in remaining}]
    return TargetDecision(column=None, confidence="low", how="none", ask=True, candidates=ordered[:3], scores=scores,
                          reason="the instruction names no column of the data")


def _reason(e: _Evidence) -> str:
    return {
        "name": f"the instruction says {e.words!r}",
        "words": f"the instruction says {e.words!r}",
        "concept": f"the instruction says {e.words!r}, which means {e.column!r} here",
        "values": f"the instruction names its values ({e.words})",
    }.get(e.how, e.how)


def _filename_match(path: str, columns: list[ColumnProfile]) -> str | None:
    if not path:
        return None
    stems = {stem(w) for w in re.split(r"[^a-z0-9]+", Path(path).stem.lower()) if len(w) >= 3}
    hits = [c.name for c in columns if set(name_parts(c.name).stems) and set(name_parts(c.name).stems) <= stems]
    return hits[0] if len(hits) == 1 else None


def target_phrase(text: str) -> str:
    """What follows the first target verb, up to the inputs ('from', 'using', ...) or the end of the sentence."""
    m = re.search(rf"\b(?:{TARGET_VERBS})\b(.*)", text)
    phrase = m.group(1) if m else text
    phrase = re.split(rf"[.;?!]|\b(?:{FEATURE_MARKERS})\b", phrase)[0]
    words = [w for w in re.findall(r"[a-z]+", phrase) if w not in {"the", "a", "an", "which", "whether", "who", "if"}]
    return " ".join(words) or text


def _meaning(text: str, columns: list[ColumnProfile], semantic) -> tuple[str, float] | None:
    phrase = target_phrase(text)
    descriptions = []
    for c in columns:
        values = _values(c)
        descriptions.append(name_parts(c.name).phrase + (f": {', '.join(values[:4])}" if values else ""))
    similarities = semantic(phrase, descriptions)
    order = sorted(range(len(columns)), key=lambda i: -similarities[i])
    best = order[0]
    second = similarities[order[1]] if len(order) > 1 else 0.0
    if similarities[best] >= 0.45 and similarities[best] - second >= 0.12:
        return columns[best].name, float(similarities[best])
    return None
