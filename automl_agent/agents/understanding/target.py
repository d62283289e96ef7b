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
from . import rx as re  # the re functions over a larger compile cache
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from .windows import requested_windows, window_spans
from ..contracts import ColumnProfile, DataProfile
from .clauses import (CLAUSE_BREAK, CLAUSE_VERBS, FEATURE_MARKERS, NEGATED_NEGATIVES, NEGATIONS, REGRESS_ON,
                      RELATIVE_NOT, TARGET_VERBS, gloss_after, heading_length, input_spans, list_start)
from .transforms import GROWTH, asked, asked_at, transform_of
from ...trainkit.columns import named_as_id
from .words import (COUNTED_IN_TIME, NUMBER_WORDS, STOPWORDS, Token, abbreviates_phrase, abbreviates_with_a_word_unsaid,
                    acronyms_spelt, base_form, compact, compounds_spelt, english_vocabulary, expand_shorthand,
                    name_parts, run_of_beginnings, short_form_at_end, shortens, stem, said_or_stem,
                    tokens, word_ending_a_code, word_inside_a_code)

NOT_TARGETS = {"identifier", "constant", "text", "datetime", "image"}
VALUE_NOISE = {"yes", "no", "true", "false", "y", "n", "none", "other", "nan", "null", "0", "1", "unknown", "na"}
AUXILIARIES = (r"is|are|was|were|will|would|does|do|did|has|have|had|can|could|might|may|should|gets?|goes|ends? up|"
               r"is going to|are going to")
# verbs that report what someone thinks: after one, the asked clause begins
OPINION_VERBS = (r"thinks?|thought|believes?|believed|feels?|felt|says?|said|agrees?|agreed|supports?|supported|"
                 r"favou?rs?|favou?red|opposes?|opposed|wants?|wanted|expects?|expected|reckons?|considers?")
DETERMINERS = r"the|this|that|a|an|our|my|each|these|those|their|his|her|its|every|any"
TIME_STEMS = {"year", "month", "week", "day", "quarter", "hour", "minut", "season"}
TIME_ADVERBS = {"hourly", "daily", "weekly", "monthly", "quarterly", "yearly", "annual", "annually"}  # how often
TIME_DETERMINERS = {"this", "last", "next", "per", "a", "each", "every", "past", "that", "one", "in"}
# ('data': the words of the data's own name, 'the UIS drug-treatment data', say nothing of what to predict)
ROLE_WEIGHTS = {"target": 1.0, "none": 0.85, "subject": 0.5, "feature": 0.35, "data": 0.2}
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
    score: float  # how strongly the words point at the column, before their role in the sentence
    how: str
    words: str
    start: int
    end: int
    role: str = "none"

    @property
    def weighted(self) -> float:
        return self.score * ROLE_WEIGHTS[self.role]


@lru_cache(maxsize=1)
def _concept_file() -> list[list[str]]:
    return json.loads(CONCEPTS_PATH.read_text())["groups"]


@lru_cache(maxsize=1)
def concept_groups() -> list[frozenset[str]]:
    """Each group's single words as stems."""
    return [frozenset(stem(w) for w in group if " " not in w) for group in _concept_file()]


@lru_cache(maxsize=4096)
def concept_synonyms(word: str) -> tuple[str, ...]:
    """The other single words of the groups a word belongs to: 'spend' -> 'expenditure', 'outlay', ..."""
    word_stem = stem(word)
    return tuple(dict.fromkeys(w for group, words in zip(concept_groups(), _concept_file()) if word_stem in group
                               for w in words if " " not in w and stem(w) != word_stem))


@lru_cache(maxsize=1)
def concept_phrases() -> list[tuple[tuple[str, ...], ...]]:
    """Each group's multi-word phrases as stem sequences ('comes back' -> ('come', 'back')), aligned with
    concept_groups()."""
    return [tuple(tuple(stem(p) for p in w.split()) for w in group if " " in w) for group in _concept_file()]


def classifiable(column: ColumnProfile) -> bool:
    """A column whose values can be classes: categories, flags, or a few distinct numbers."""
    return column.kind in {"categorical", "boolean"} or (column.kind == "numeric" and column.n_unique <= 50)


def eligible_columns(profile: DataProfile) -> list[ColumnProfile]:
    if profile.graph is not None:
        return [c for c in profile.columns if c.name in profile.target_candidates[:1]]
    return [c for c in profile.columns if c.kind not in NOT_TARGETS]


# verbs whose noun is spelt otherwise: 'what it will sell for' is the SalePrice, 'whether they died' the death
_VERB_NOUNS = {"sell": "sale", "sells": "sale", "selling": "sale", "sold": "sale", "die": "death", "dies": "death",
               "died": "death", "dead": "death", "buy": "purchas", "buys": "purchas", "bought": "purchas",
               "pay": "payment", "pays": "payment", "paid": "payment", "lose": "loss", "loses": "loss", "lost": "loss",
               "grow": "growth", "grows": "growth", "grew": "growth", "grown": "growth", "weigh": "weight",
               "weighs": "weight", "weighed": "weight", "high": "height", "tall": "height", "long": "length",
               "wide": "width", "deep": "depth", "spend": "spending", "spent": "spending", "earn": "earning",
               "earned": "earning", "earns": "earning"}


# what English adds to a stem: 'employ' -> 'employment', 'sport' -> 'sports'; 'sport' -> 'sportler' is another word
_SUFFIXES = ("s", "es", "e", "ed", "er", "ers", "ing", "ings", "ment", "ments", "ion", "ions", "ation", "ations", "al",
             "ally", "ly", "ity", "ities", "ness", "ive", "ives", "or", "ors", "y", "ies", "ful", "ic", "ics", "ist", "ists",
             "ance", "ence", "ant", "ent", "age", "ages", "ship", "ure", "ures", "ize", "ise", "ized", "ised", "able",
             "ean", "eans", "ian", "ians")  # Europe -> European, Canada -> Canadian


def _extends(longer: str, prefix: str) -> bool:
    """`longer` is `prefix` with an English ending (or a short one), not another word that starts the same way."""
    if not longer.startswith(prefix):
        return False
    rest = longer[len(prefix):]
    return len(rest) <= 2 or rest in _SUFFIXES


def word_matches(token: Token, word: str, word_stem: str) -> bool:
    if token.stem == word_stem or token.text == word or _VERB_NOUNS.get(token.text) in (word_stem, word):
        return True
    if len(word_stem) >= 4 and len(token.stem) >= 4 and (_extends(token.stem, word_stem) or _extends(word_stem, token.stem)):
        return True
    # a typo keeps the first letter and most of the rest ('chrun', 'dimonds'); 'height' is not 'weight', and a word
    # of its own is no typo ('prison' is not 'person')
    return (len(word) >= 5 and len(token.text) >= 5 and token.text[0] == word[0]
            and fuzz.ratio(token.text, word) >= 80 and not _another_word(token.text, word))


def _another_word(said: str, word: str) -> bool:
    """Two English words that are not one word spelt two ways ('colors' is 'colour')."""
    vocabulary = english_vocabulary()
    return bool(vocabulary) and said in vocabulary and word in vocabulary \
        and _american(stem(said)) != _american(stem(word)) and stem(_american(said)) != stem(_american(word))


def _american(word: str) -> str:
    return re.sub(r"our(?=s?$)", "or", re.sub(r"([iy])s(?=(?:e|ed|es|ing)?$)", r"\1z", re.sub(r"tre$", "ter", word)))


def _phrase_at(phrase: tuple[str, ...], toks: list[Token], i: int) -> list[Token] | None:
    """The tokens that say phrase starting at toks[i], its words in order with at most two others between
    ('send this order back' says 'send back', 'hand in their notice' says 'hand in notice')."""
    if toks[i].stem != phrase[0]:
        return None
    found, j = [toks[i]], i
    for word in phrase[1:]:
        nxt = next((k for k in range(j + 1, min(j + 4, len(toks))) if toks[k].stem == word), None)
        if nxt is None:
            return None
        found.append(toks[nxt])
        j = nxt
    return found


def _phrase_tokens(toks: tuple[Token, ...]) -> frozenset[int]:
    """Where some concept phrase is said: its words do not count on their own ('pay' in 'pay us back')."""
    return frozenset(_phrase_meanings(toks))


@lru_cache(maxsize=64)
def _phrase_meanings(toks: tuple[Token, ...]) -> dict[int, frozenset[str]]:
    """For each word inside a concept phrase said, the words of that phrase's group: 'school' in 'years in school'
    means education, not a school column."""
    meanings: dict[int, set[str]] = {}
    said = list(toks)
    for group, phrases in zip(concept_groups(), concept_phrases()):
        for phrase in phrases:
            for i in range(len(said)):
                for t in _phrase_at(phrase, said, i) or []:
                    meanings.setdefault(t.start, set()).update(group)
    return {start: frozenset(group) for start, group in meanings.items()}


def _concept_matches(word_stem: str, toks: list[Token]) -> list[Token]:
    """Words and phrases of the instruction that mean what a name's word means ('quit' for 'left')."""
    found = []
    in_phrases = _phrase_tokens(tuple(toks))
    for group, phrases in zip(concept_groups(), concept_phrases()):
        if word_stem not in group:
            continue
        # (a verb after 'to' is what someone does, not the thing a column records: 'the willingness to pay' is no
        # pay, 'ready to sell' no sale)
        found += [t for k, t in enumerate(toks) if t.stem in group and t.stem != word_stem and t.start not in in_phrases
                  and not (k > 0 and toks[k - 1].text == "to" and t.text in _VERB_NOUNS)]
        for phrase in phrases:
            for i in range(len(toks)):
                said = _phrase_at(phrase, toks, i)
                if said:
                    found.append(Token(" ".join(t.text for t in said), " ".join(phrase), said[0].start))
    return found


def _spans(text: str, pattern: str, length: int, stops: str = r"[.;?!]", past_heading: bool = False) -> list[tuple[int, int]]:
    """Character spans that start after each match of pattern and run for `length` words (stopping at . ; ? !); with
    past_heading, after the heading of a list ('except the other versions of the price: ...')."""
    spans = []
    for m in re.finditer(rf"\b(?:{pattern})\b", text):
        start = m.end() + (heading_length(text[m.end():]) if past_heading else 0)
        rest = text[start:]
        stop = re.search(rf"{stops}|\b(?:and then|but)\b", rest)
        rest = rest[: stop.start()] if stop else rest
        words = list(re.finditer(r"\S+", rest))[:length]
        end = start + (words[-1].end() if words else 0)
        spans.append((start, end))
    return spans


def _within(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


_DATA_NOUN = r"(?:panel|data|dataset|data set|table|file|survey|sample|spreadsheet|csv|extract)\b"


def _roles(text: str) -> dict[str, list[tuple[int, int]]]:
    # ('we don't want race in the model, and agesq ...': a verb's word after an article is a noun, and names nothing
    # to predict unless 'of' or 'for' says whose: 'the forecast of sales')
    target = [(a, b) for a, b in _spans(text, rf"{TARGET_VERBS}|whether", 8, stops=rf"[.;?!]|\b(?:{FEATURE_MARKERS})\b")
              if not (re.search(r"\b(?:the|a|an|our|your|my|their|its|his|her)\s+[\w-]+$", text[:a])
                      and not re.match(r"\s+(?:of|for)\b", text[a:]))]
    features = []
    described = []  # the data's own name, said after 'with' or 'from'
    # a list of inputs runs to its sentence's end or the next clause, however many it names (seven inputs with their
    # articles and possessives are 20 words)
    for a, b in _spans(text, FEATURE_MARKERS, 40, stops=rf"[.;?!]|{CLAUSE_BREAK}"):
        if re.match(r"\s+(?:a|an|the|our|your)\s+(?:model|algorithm|machine|system|ai|computer|tool)\b", text[a:]):
            continue  # 'a second opinion from a model' names no inputs
        if data_phrase := re.match(rf"\s+(?:a|an|the|this|our|your|my)\s+(?:[\w.-]+\s+){{0,4}}?{_DATA_NOUN}", text[a:]):
            # 'working with the UIS drug-treatment data' names the data: its words are no inputs, and no target
            described.append((a, a + data_phrase.end()))
            continue
        if re.search(r"\b(?:is|are|was|were|comes?|came|originat\w*)\s+from$", text[:a]):
            continue  # 'whether the customer is from France' asks where from
        if re.search(r"\b(?:ends?|ended|ending|winds?|wound|wind|come|comes|came)\s+(?:up|away|out)\s+with$", text[:a]):
            target.append((a, b))  # 'which instructors end up with tenure' asks for the tenure
            continue
        if re.search(r"\b(?:made|placed|booked|written|sent|owned|submitted|filed|bought|purchased|issued|signed|"
                     r"opened|created|ordered|reserved|posted|authored|run|operated|fixed|set|determined|decided|"
                     r"negotiated|agreed|covered|governed|regulated)\s+by\s*$", text[:a]):
            continue  # 'the bookings made by returning guests': who made them describes the rows, it is no input
        if re.search(r"\bwhether\b[^.;?!,]*\b(?:was|were|is|are|been|being|gets?|got)\s+(?:\w+ly\s+)?\w+ed\s+by\s*$",
                     text[:a]):
            target.append((a, b))  # 'whether a response was started by a 911 call': the passive's doer is asked about
            continue
        if re.search(r"\b(?:classif\w*|categori[sz]\w*|label\w*|sort\w*|tag\w*)\b[^.;,]*\bby\s*$", text[:a]):
            target.append((a, b))  # 'classify iris flowers by species': the classes, not an input
            continue
        # a feature clause ends where the target clause begins ("from bill length, predict the species") and, when
        # it opens the sentence, at its comma ("given the neighborhood, what's the price?")
        clause = text[a:b]
        nxt = next((m for m in re.finditer(
            rf"(?:[,;:]\s*|\b(?:and|then|to)\s+)(?:{TARGET_VERBS})\b|\b(?:{CLAUSE_VERBS}|whether)\b", clause)
            if re.search(r"\w", clause[:m.start()])), None)
        b = a + nxt.start() if nxt else b
        opening = re.search(r"(?:^|[.;?!]\s*)\W*\w*\W*$", text[:a])
        if opening and "," in text[a:b]:
            b = a + text[a:b].index(",")
        features.append((a, b))
    # 'the temperature for each origin': the series it is said of, a grouping, not what to predict
    for m in re.finditer(r"\b(?:for each|for every|at each|in each|per)\s+(?:of\s+)?(?:the\s+)?(?:\d+\s+)?", text):
        # (a dot inside a name, 'price.sunny'; one after a word ends the sentence: 'one row per quarter. Forecast X')
        said = re.match(r"[\w-]+(?:\.[\w-]+)*(?:\s+(?!for\b|from\b|over\b|in\b|on\b|next\b|and\b)[\w-]+(?:\.[\w-]+)*){0,2}",
                        text[m.end():])
        if said:
            features.append((m.end(), m.end() + said.end()))
    # "regress Y on X"
    for m in re.finditer(REGRESS_ON, text):
        rest = re.split(r"[.;?!]", text[m.end():])[0]
        features.append((m.end(), m.end() + len(rest)))
    # "X and Y go in; Z comes out", "X as inputs"
    for m in re.finditer(r"([^.;:?!]*?)\b(?:go in|goes in|are the inputs|as inputs?|as features?|are inputs|are features)\b",
                         text):
        windows = window_spans(text)
        start = list_start(text, m.start(1), m.end(1), windows)
        if not any(start < b <= m.end(1) and not text[b:m.end(1)].strip() for a, b in windows):
            # 'the previous ten years as input' is a lookback
            features.append((start, m.end(1)))
    # 'based only on contract and tenure', 'features restricted to carat', 'amount and hour are the only features'
    features += [(a, b) for _, a, b, _, _ in input_spans(text)]
    # ('everyone who was not hospitalised died': a 'not' in a relative clause describes the rows)
    negated = [(a, b) for a, b in _spans(text, NEGATIONS, 6, stops=r"[.;?!,()]", past_heading=True)
               if not re.match(NEGATED_NEGATIVES, text[a:]) and not re.search(rf"{RELATIVE_NOT}\s*$", text[:a])]
    # a yes/no question: its subject is the row ('will the home team ...'), what follows is asked about ('... win?')
    subject = []
    for m in re.finditer(rf"(?:^|[.?!]\s+)(?:will|would|does|do|did|is|are|was|were|has|have|can)\s+(?:{DETERMINERS})\s+"
                         r"([^.?!]*)\?", text):
        words = list(re.finditer(r"[\w'-]+", m.group(1)))
        if len(words) >= 2:
            cut = words[min(2, len(words) - 1) - 1].end()
            subject.append((m.start(1), m.start(1) + cut))
            target.append((m.start(1) + cut, m.end(1)))
    # the same asked indirectly: 'know if a senior citizen customer is going to churn', 'whether the loan will be
    # repaid'; there the subject ends at its verb
    # ('whether the respondent thinks abortion should be banned': the subject ends at a verb of opinion, and the
    # opinion is what is asked)
    for m in re.finditer(rf"\b(?:if|whether)\s+(?:{DETERMINERS})\s+([\w' -]+?)(?:\s+(?:{OPINION_VERBS})\s+(?:that\s+)?"
                         rf"(?=[^.;?!]*\b(?:{AUXILIARIES})\b)|\s+(?:{AUXILIARIES})\b)([^.;?!]*)", text):
        subject.append((m.start(1), m.end(1)))
        # ('..., but I want to use only the categories (...)': the question ends where the next clause begins)
        cut = re.search(CLAUSE_BREAK, m.group(2))
        target.append((m.start(2), m.start(2) + cut.start() if cut else m.end(2)))
    # 'which school a child attends', 'what grade each student gets': what is asked comes before the one it is said of
    for m in re.finditer(rf"\b(?:which|what)\s+((?:[\w-]+\s+){{1,3}}?)(?:{DETERMINERS})\s+([\w-]+)\s+"
                         rf"(?=(?:{AUXILIARIES})\b|[a-z]+(?:s|ed)\b)", text):
        target.append((m.start(1), m.end(1)))
        subject.append((m.start(2), m.end(2)))
    # 'the life expectancy of the country': what it is said of is the row, not what is asked
    for m in re.finditer(r"\b(?:of|for)\s+(?:the|each|every|a|an|this|that|one)\s+([\w-]+)(?=\s*(?:[.,;:!?]|$|\b(?:from|using|"
                         r"with|based|given|by)\b))", text):
        subject.append((m.start(1), m.end(1)))
    # 'how late each flight is', 'the price of each flight.': the unit a row stands for, not what is asked about (a
    # hyphened word before it too: 'each verbal-aggression item')
    unit = [(m.start(1), m.end(1)) for m in re.finditer(
        r"\b(?:each|every)\s+(?:\w+-[\w-]+\s+){0,2}?([\w-]+)(?=\s*(?:[.,;:!?)]|$|\b(?:is|are|was|were|has|have|had|will|would|can|could|in|"
        r"on|at|from|with|by|for|made|makes|took|takes|gets|got|spent|spends|did|does)\b))", text)]
    # 'flag the bookings made by returning guests', 'spot the transfers that look fraudulent': the rows, and what is
    # said of them is asked
    unit += [(m.start(1), m.end(1)) for m in re.finditer(
        r"\b(?:flag|spot|detect|identify|catch|find|pick out|mark|single out)\s+(?:the|which|all|any|those)\s+([\w-]+)\s+"
        r"(?=that|which|who|whose|where|made|placed|booked|sent|with|by|from)\b", text)]
    subject += unit
    # "a cardholder's average spending": the owner is the row, what it owns is asked about
    for m in re.finditer(r"\b([\w-]+)'s\s+(?=[a-z])", text):
        subject.append((m.start(1), m.end(1)))
    # 'survival model pls', 'a churn classifier', 'build a sales forecast': the words before the model name its target
    for m in re.finditer(r"(?:^|[.;:!?]\s*|\b(?:a|an|the|build|train|make|fit|need|want|create|our|my|new)\s+)"
                         r"((?:[\w.-]+\s+)?[\w.-]+)\s+(?:prediction\s+|forecasting\s+|classification\s+|regression\s+)?"
                         r"(?:model|classifier|predictor|regressor|forecaster|forecast)s?\b", text):
        target.append((m.start(1), m.end(1)))
    # 'a regression of the orange juice price using ...': what a model is of
    target += _spans(text, r"(?:regression|classification|classifier|forecast|prediction|predictor)\s+(?:of|for)", 8,
                     stops=rf"[.;?!]|\b(?:{FEATURE_MARKERS})\b")
    # '- Target: the flag for being unemployed', 'y = value': a heading that says what is asked
    target += _spans(text, r"(?:^|(?<=[.;:!?\n]))\s*[-*]?\s*(?:target|label|outcome|y)\s*[:=]", 12)
    # 'in this file that outcome is the right-censoring indicator': the writer says which column what is asked is
    # ('the quantity i'm after is how many chronic conditions each person has')
    target += _spans(text, r"(?:that|this|the|my|our)\s+(?:outcome|target|label|quantity|answer)(?:\s+(?:i'm|i am|we're|we "
                           r"are)\s+(?:after|interested in))?\s+(?:is|=|:)", 8)
    # 'what i'd like predicted is the fraction ... that goes on drink'
    target += _spans(text, r"\bwhat\s+(?:i|we)(?:'d|\s+would)?\s+(?:like|want|need|wish)\s+(?:to\s+(?:predict|forecast|"
                           r"estimate|model|know|see predicted)|predicted|forecast|forecasted|estimated|modell?ed)\s+is", 12)
    return {"target": target, "features": features, "negated": negated, "subject": subject, "unit": unit,
            "data": described}


def _values(column: ColumnProfile) -> list[str]:
    return [v for v in column.examples if v.strip().lower() not in VALUE_NOISE and len(v.strip()) >= 2
            and not re.fullmatch(r"[\d.,\-]+", v.strip())]


def _every_level_said(column: ColumnProfile, text: str) -> list[tuple[str, int, int]]:
    """Each of a column's few values said close together ('(no / perhaps / yes)'): the set names the column, though
    its words alone ('yes', 'no') are too common to; a set of yes and no only names none (many columns have it)."""
    levels = [v.strip() for v in column.examples]
    if not 2 <= column.n_unique == len(levels) <= 6 or all(v.lower() in VALUE_NOISE for v in levels) \
            or any(len(v) < 2 for v in levels):
        return []
    hits = []
    for value in levels:
        m = re.search(rf"(?<![\w-]){re.escape(value.lower())}(?![\w-])", text)
        if not m:
            return []
        hits.append((value, m.start(), m.end()))
    return hits if max(b for _, _, b in hits) - min(a for _, a, _ in hits) <= 20 * len(hits) else []


def _value_hits(column: ColumnProfile, text: str, toks: list[Token]) -> list[tuple[str, int, int]]:
    hits = []
    spaced = text.replace("-", " ")
    for value in _values(column):
        v = value.lower().replace("-", " ")
        m = re.search(rf"(?<![\w]){re.escape(v)}(?![\w])", spaced)
        if m:
            hits.append((value, m.start(), m.end()))
            continue
        # 'full time' said for the value fulltime
        joined = next(((a, b) for a, b in zip(toks, toks[1:]) if a.text + b.text == v and len(a.text) >= 3), None)
        if joined is not None:
            hits.append((value, joined[0].start, joined[1].end))
            continue
        if " " not in v:
            vs = stem(v)
            t = next((t for t in toks if t.stem == vs or (len(vs) >= 4 and t.stem.startswith(vs))), None)
            if t is not None:
                hits.append((value, t.start, t.end))
    return hits


def _name_word_hits(column: ColumnProfile, toks: list[Token]) -> list[list[tuple[Token, bool]]]:
    """For each meaningful word of the column's name, the instruction's words that say it: (token, by concept).
    'this year' and 'per day' say when, not which column."""
    parts = name_parts(column.name)
    words_at = [t for i, t in enumerate(toks) if not _says_when(toks, i)]
    meanings = _phrase_meanings(tuple(toks))
    found = []
    for word, word_stem in zip(parts.words, parts.stems):
        # 'monthly traffic' says how often, not the Month column; 'monthly charges' does say monthly_charges
        direct = [(t, False) for t in words_at if (t.text not in TIME_ADVERBS or t.text == word)
                  and (word_matches(t, word, word_stem) or _abbreviates(word, t.text, parts))
                  and (t.start not in meanings or word_stem in meanings[t.start])]
        found.append(direct or [(t, True) for t in _concept_matches(word_stem, toks)])
    return found


_DURATION_ADJECTIVES = {"trading", "business", "working", "calendar", "full", "whole", "more", "further", "additional",
                        "consecutive", "following", "previous", "prior", "past", "coming", "next", "last", "upcoming"}


def _says_when(toks: list[Token], i: int) -> bool:
    """'this year', 'per day', '12 months', 'two years', 'the next 10 trading days': a time word that measures or
    places a span of time, not the Year or Day column."""
    if toks[i].stem not in TIME_STEMS or i == 0:
        return False
    before = toks[i - 1].text
    if before in TIME_DETERMINERS or before.isdigit() or before in NUMBER_WORDS:
        return True
    if before == "the" and i >= 2 and toks[i - 2].text in {"over", "in", "into", "during", "throughout", "across", "within"}:
        return True  # 'how many goals a club allowed over the season': when, not the Season column
    return before in _DURATION_ADJECTIVES and i >= 2 and (toks[i - 2].text.isdigit() or toks[i - 2].text in NUMBER_WORDS
                                                           or toks[i - 2].text in TIME_DETERMINERS)


def _abbreviates(word: str, said: str, parts) -> bool:
    """A name word that is the start of a longer word said: 'mag' for magnitude, 'temp' for temperature, 'visib' for
    visibility; short ones only inside a longer name ('Loan_Amt' for amount)."""
    if word.endswith("s") and len(word) >= 4 and said.endswith("s"):  # 'Apps' for applications, 'bdrms' bedrooms
        word, said = word[:-1], said[:-1]
    if compact(word) and len(word) >= 3 and said.isalpha() and shortens(word, said) and said[-1] == word[-1]:
        return True  # a name written without its vowels: 'hgt' for height, 'wgt' weight, 'pct' percent
    # (a request word abbreviates nothing: 'predict' is no 'pre' of preKFAC)
    if not word.isalpha() or not said.startswith(word) or word in STOPWORDS or said in STOPWORDS:
        return False
    vocabulary = english_vocabulary()
    if vocabulary and word in vocabulary and said not in vocabulary:
        return False  # 'sport' is a word of its own: 'sportler' (German) is another word, not what it abbreviates
    if len(parts.words) > 1:
        return len(word) == 3 and len(said) >= 6
    return len(word) >= 3 and len(said) >= len(word) + 3


@lru_cache(maxsize=512)
def lettered_word(name: str) -> str | None:
    """'employment' for memployment, 'wage' for lwage, 'educ' for meduc: a name that is one letter (whose it is, or
    what was done to it) before a whole English word or a word people use for what tables record, and no word
    itself."""
    low = name.lower()
    vocabulary = english_vocabulary()
    conceptual = any(stem(low[1:]) in group for group in concept_groups())  # 'educ' in meduc, 'alc' in walc
    known = low[1:] in vocabulary or conceptual
    if not (name.isalpha() and (len(low) >= 5 or (len(low) == 4 and conceptual)) and known and low not in vocabulary):
        return None
    return low[1:]


def _lettered_mentions(name: str, toks: list[Token], taken: list[int]) -> list[_Evidence]:
    """The word of a lettered name said, or a word meaning it: weaker than a name said whole, unless a word starting
    with the letter stands beside it ('the mother's employment', 'the work situation of the mother')."""
    word = lettered_word(name)
    if word is None:
        return []
    word_stem = stem(word)
    said = [(t, False) for t in toks if word_matches(t, word, word_stem)] \
        or [(t, True) for t in _concept_matches(word_stem, toks)]
    out = []
    for t, by_concept in said:
        if t.start in taken:
            continue
        i = next(k for k, o in enumerate(toks) if o.start >= t.start)
        j = next((k for k, o in enumerate(toks) if o.start >= t.start + len(t.text)), len(toks))
        after = [o.text for o in toks[j:j + 3]]
        owner = (i > 0 and toks[i - 1].text[0] == name[0].lower() and toks[i - 1].text not in STOPWORDS) or (
            after[:1] == ["of"] and any(w[0] == name[0].lower() and w not in STOPWORDS for w in after[1:]))
        # with its owner said, both parts of the name are: as sure as a name said whole ('mother's schooling' is
        # meducation, not the school column)
        score = 0.95 if owner else (0.5 if by_concept else 0.6)
        if owner and i > 0 and toks[i - 1].text[0] == name[0].lower():
            # 'the real price': the words stand for rprice together, so 'price' inside them is not the price column
            out.append(_Evidence(name, score, "words", f"{toks[i - 1].text} {t.text}", toks[i - 1].start, t.end))
            continue
        out.append(_Evidence(name, score, "concept" if by_concept else "words", t.text, t.start, t.end))
    return out


# words people use for the data itself; a column may carry one as its name (diamonds' 'table')
_DATA_NOUNS = {"table", "data", "dataset", "file", "sheet", "spreadsheet", "records", "rows", "sample", "export"}
_THE_DATA = re.compile(r"\b(?:on|from|in|with|using|for|into|across|over|about)\s+(?:this|the|that|my|our|your|these|"
                       r"attached|whole|entire|full)\s+(?:[\w-]+\s+){0,2}$")


def _row_unit(profile: DataProfile, text: str) -> set[tuple[int, int]]:
    """Where the text says what one row is by the table's own name: 'how long an email is' over email.csv, 'each
    flight' over flights.csv. Those words describe the rows; they name no column that shares them (sent_email)."""
    stem = Path(profile.path).stem.lower() if profile.path else ""
    words = {w for w in re.split(r"[^a-z]+", stem) if len(w) >= 3}
    words |= {w[:-1] for w in words if w.endswith("s")}
    if not words:
        return set()
    pattern = rf"\b(?:an?|each|every|per|one|any)\s+((?:{'|'.join(sorted(map(re.escape, words)))})s?)\b"
    return {(m.start(1), m.end(1)) for m in re.finditer(pattern, text)}


def _names_the_data(name: str, text: str, start: int) -> bool:
    """'a model on this gemstone table': the word names the data, not the column that happens to share it."""
    return name in _DATA_NOUNS and bool(_THE_DATA.search(text[:start])) \
        and not re.match(r"\s*(?:column|field|variable|value)", text[start + len(name):])


def spelled_out(name: str) -> str | None:
    """'MinutesPerMile' -> 'minutes per mile': a name of three or more capitalised words, as a sentence says it."""
    words = re.findall(r"[A-Z][a-z]+", name)
    return " ".join(words).lower() if len(words) >= 3 and "".join(words) == name else None


# verbs that carry no meaning of their own start no name ('doing a project' is no 'dp', 'were followed' no wfed)
_LIGHT_VERBS = {"doing", "making", "having", "getting", "going", "using", "taking", "giving", "being", "trying", "looking",
                "putting", "keeping", "letting", "seeing", "running", "working", "is", "are", "was", "were", "be",
                "been", "has", "have", "had", "do", "does", "did"}
_NO_RUN_START = STOPWORDS | _LIGHT_VERBS


def _request_verb(word: str) -> bool:
    """'predicts', 'classify': the request's own verb, which spells no name ('predicts the capital' is no pcap)."""
    return re.fullmatch(CLAUSE_VERBS, word) is not None


def _starts_no_run(word: str) -> bool:
    """A word no run of words that spells a name begins with: a small word, a light verb, or the request's verb."""
    return word in _NO_RUN_START or _request_verb(word)


_DETERMINERS = frozenset({"the", "its", "their", "our", "my", "your", "his", "her", "these", "those", "all", "of"})


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")) else word


# the small words between a head noun and what it is of: 'the yield of dividends', 'the score in reading'
_OF_WORDS = frozenset({"of", "in", "into", "on"})


@lru_cache(maxsize=8192)
def _spelt_with_a_synonym(name: str, words: tuple[str, ...]) -> bool:
    """Whether the words spell the name once one of them is swapped for a word of the same meaning (concepts.json)."""
    return any(abbreviates_phrase(name, [*words[:i], other, *words[i + 1:]])
               for i, word in enumerate(words) if len(word) >= 4 for other in concept_synonyms(word))


def column_mentions(column: ColumnProfile, text: str, toks: list[Token]) -> list[_Evidence]:
    """Every place the instruction speaks of the column, each with how strongly."""
    out: list[_Evidence] = []
    name = column.name.lower()
    if len(name) >= 3 or not name.isalpha():
        out += [_Evidence(column.name, 1.0, "name", column.name, m.start(), m.end())
                for m in re.finditer(rf"(?<![\w]){re.escape(name)}(?![\w])", text)]
    if spelled := spelled_out(column.name):
        # 'the minutes per mile' is MinutesPerMile, said word by word
        out += [_Evidence(column.name, 1.0, "name", m.group(0), m.start(), m.end())
                for m in re.finditer(rf"(?<![\w]){re.escape(spelled)}s?(?![\w])", text)]
    if name.isalpha() and 2 <= len(name) <= 5 and (column.name.isupper() or len(name) <= 4):
        # 'OT' is what 'oil temperature' abbreviates, 'bmi' 'body mass index'
        content = [t for t in toks if len(t.text) >= 3 and t.text not in STOPWORDS]
        for i in range(len(content) - len(name) + 1):
            run = content[i:i + len(name)]
            # (the request's own verb gives no initial: 'predicts capital' is no pc; nor does a light verb: 'whether
            # the wife has health insurance' is no hhi)
            if "".join(t.text[0] for t in run) == name and not _starts_no_run(run[0].text):
                out.append(_Evidence(column.name, 0.8, "words", " ".join(t.text for t in run), run[0].start, run[-1].end))
        if len(name) >= 3:
            # 'heating value' for HHV ('higher heating value'): the initials but for a qualifier left unsaid before them
            for i in range(len(content) - len(name) + 2):
                run = content[i:i + len(name) - 1]
                initials = "".join(t.text[0] for t in run)
                # (a three-letter name's two initials only from words side by side: 'ever use a birth' is no ceb)
                if len(run) >= 2 and run[-1].start - run[0].end <= (1 if len(name) == 3 else 12 * len(run)) \
                        and name[1:] == initials \
                        and run[0].text not in _LIGHT_VERBS \
                        and not any(e.start == run[0].start for e in out):
                    out.append(_Evidence(column.name, 0.7, "words", " ".join(t.text for t in run), run[0].start,
                                         run[-1].end))
    if compact(column.name) or (column.name.isalpha() and len(column.name) >= 5):
        # 'Bwt' for 'body weight', 'lvrat' for 'loan value ratio', 'airco' for 'air conditioning': words that stand
        # together and spell the name
        for i, first in enumerate(toks):
            for n in (2, 3, 4):
                run = toks[i:i + n]
                # one small word may stand inside ('out of work' spells outwork), never at either end
                inner = [t for t in run[1:-1] if t.text in STOPWORDS]
                # ('workers in each county' is a grouping, no name wcon)
                said = [t for t in run if t.text not in STOPWORDS]
                if len(run) == n and len(said) >= 2 and not _starts_no_run(run[0].text) \
                        and run[-1].text not in STOPWORDS \
                        and len(inner) <= (2 if n == 4 else 1) and run[-1].start - first.end <= 12 * n \
                        and not any(t.text in {"each", "every", "per"} for t in inner) \
                        and (abbreviates_phrase(column.name, [t.text for t in said])
                             or abbreviates_phrase(column.name, _prefixes_joined(said, text))
                             or (inner and abbreviates_phrase(column.name, [t.text for t in run]))) \
                        and not any(e.start == first.start for e in out):
                    out.append(_Evidence(column.name, 0.8, "words", " ".join(t.text for t in run), first.start, run[-1].end))
                elif len(run) == n and n <= 3 and len(said) == n and not _starts_no_run(run[0].text) \
                        and run[-1].start - first.end <= 12 * n and not any(e.start == first.start for e in out) \
                        and _spelt_with_a_synonym(column.name, tuple(t.text for t in said)):
                    # 'total deaths' for totfat (total fatalities): the name spelt by the words, one of them said in
                    # another word of the same meaning; weaker than the name's own words
                    out.append(_Evidence(column.name, 0.75, "words", " ".join(t.text for t in run), first.start,
                                         run[-1].end))
                elif len(run) == 3 and run[1].text in _OF_WORDS and len(name) >= 5 \
                        and all(len(t.text) >= 4 and t.text not in STOPWORDS for t in (run[0], run[2])) \
                        and abbreviates_phrase(column.name, [run[2].text, run[0].text]) \
                        and not any(e.start == first.start for e in out):
                    # 'the yield of dividends' (or 'rendement en dividendes') is the dividend yield, divyld
                    out.append(_Evidence(column.name, 0.75, "words", " ".join(t.text for t in run), first.start,
                                         run[-1].end))
        # 'did ever use a birth control method' for usemeth: the beginnings of two words a few words apart in one
        # clause, run together
        if name.isalpha() and len(name) >= 6:
            # (a word the rules keep as a request word, 'use', may still begin a name, whole: usemeth)
            # (the request's own verb spells nothing: 'predicts the capital' is no pcap)
            words_at = [t for t in toks if len(t.text) >= 3 and (t.text not in STOPWORDS or name.startswith(t.text))
                        and not _request_verb(t.text)]
            for i, first in enumerate(words_at):
                for last in words_at[i + 1:i + 5]:
                    if re.search(r"[,.;:!?()]", text[first.end:last.start]) or any(e.start == first.start for e in out):
                        break
                    # ('whether the favoured team won': 'won' gives win, favwin)
                    if run_of_beginnings(name, [first.text, base_form(last.text)]) and name.startswith(first.text[:3]) and len(name) - len(first.text[:3]) >= 3:
                        out.append(_Evidence(column.name, 0.7, "words", f"{first.text} {last.text}", first.start,
                                             last.end))
                        break
        # 'applicant income' said, atotinc meant: two words that spell the name but for a word between them
        for first, last in zip(toks, toks[1:]):
            if first.text not in STOPWORDS and last.text not in STOPWORDS and len(first.text) >= 3 \
                    and not any(e.start == first.start for e in out) \
                    and abbreviates_with_a_word_unsaid(column.name, first.text, last.text):
                out.append(_Evidence(column.name, 0.7, "words", f"{first.text} {last.text}", first.start, last.end))
    if column.name.isalpha() and column.name.islower() and len(name) >= 6:
        # 'the short stays' for stayshort: two words that make the name, the qualifier said first as English does
        out += [_Evidence(column.name, 0.9, "words", f"{first.text} {last.text}", first.start, last.end)
                for first, last in zip(toks, toks[1:])
                if len(first.text) >= 3 and first.text not in STOPWORDS and last.text not in STOPWORDS
                and name == _singular(last.text) + first.text]
        # 'the founding year' for foundingyear: the words of the name said apart, in its order
        out += [_Evidence(column.name, 0.95, "words", " ".join(t.text for t in run), run[0].start, run[-1].end)
                for n in (2, 3) for i in range(len(toks) - n + 1)
                if len(run := toks[i:i + n]) == n and all(len(t.text) >= 2 for t in run)
                and all(b.start - a.end == 1 for a, b in zip(run, run[1:])) and "".join(t.text for t in run) == name]
        # 'yearacc', 'yearveh': a name run together from words; its first word said alone is half of it, as 'year' is
        # for yearVeh, so 'the year' fits both and is asked about
        # ('the stays' is stay said of stayshort and staylong alike, a plural's s never the start of the next word;
        # a plural counts only as a noun, after a determiner: 'whatever works best' says nothing of workprg)
        out += [_Evidence(column.name, 0.3, "words", t.text, t.start, t.end) for i, t in enumerate(toks)
                if len(word := _singular(t.text)) >= 4 and (word == t.text or (i and toks[i - 1].text in _DETERMINERS))
                and name.startswith(word) and len(name) - len(word) >= 2
                and not any(e.start <= t.start < e.end for e in out)]
    if column.name.isalpha() and 5 <= len(name) <= 8:
        # 'GPA' for colgpa: a short form said, the end of a name run together after a short qualifier ('sold' is a
        # word of its own, not the end of daysold); weaker than a name said whole, so a GPA column beside it wins
        out += [_Evidence(column.name, 0.6, "words", t.text, t.start, t.end) for t in toks
                if short_form_at_end(column.name, t.text) and not any(e.start <= t.start < e.end for e in out)]
    # 'the math score' for tmathssk, 'the reading score' for treadssk: a word whole inside a coded name
    out += [_Evidence(column.name, 0.6, "words", t.text, t.start, t.end) for t in toks
            if (said_or_stem(word_inside_a_code, column.name, t) or said_or_stem(word_ending_a_code, column.name, t))
            and not any(e.start <= t.start < e.end for e in out)]
    out += _lettered_mentions(column.name, toks, [e.start for e in out])
    per_word = _name_word_hits(column, toks)
    for i, hits in enumerate(per_word):
        for anchor, anchor_by_concept in hits:
            # the other words of the name as near this one as they come ('sales ... asking price', not 'under-pricing')
            nearest = {j: min(other, key=lambda h: abs(h[0].start - anchor.start))
                       for j, other in enumerate(per_word) if j != i and other}
            chosen = [(anchor, anchor_by_concept), *nearest.values()]
            by_concept = any(c for _, c in chosen)
            starts = sorted(t.start for t, _ in chosen)
            # the words of a multi-word name count together only where they stand together ('unit price', 'price
            # per unit'); scattered over the sentence they are weak evidence
            together = len(chosen) < 2 or starts[-1] - starts[0] <= 12 * len(chosen) + 6
            fraction = len(chosen) / len(per_word)
            if fraction == 1 and together:
                score = 0.75 if by_concept else 0.9
            else:
                score = (0.5 if by_concept else 0.6) * (fraction if together else 0.5)
            words = " ".join(t.text for t, _ in sorted(chosen, key=lambda h: h[0].start))
            start = starts[-1] if together else anchor.start
            end = max(t.end for t, _ in chosen) if together else anchor.end
            out.append(_Evidence(column.name, score, "concept" if by_concept else "words", words, start, end))
    if column.kind in {"categorical", "boolean"} or column.n_unique <= 20:
        hits = _value_hits(column, text, toks)
        every = _every_level_said(column, text)
        if every:  # 'the raw answer with three levels (no / perhaps / yes)': the column's whole set of values
            hits = every
        if hits and not (len(hits) == 1 and len(hits[0][0]) < 3):
            score = 0.85 if len(hits) >= 2 else 0.25
            out.append(_Evidence(column.name, score, "values", " / ".join(v for v, _, _ in hits),
                                 min(a for _, a, _ in hits), max(b for _, _, b in hits)))
    if stem(name) in TIME_STEMS:  # 'over the season', 'this year': when, not the Season or Year column
        at = {t.start: i for i, t in enumerate(toks)}
        out = [e for e in out if e.how != "name" or e.start not in at or not _says_when(toks, at[e.start])]
    out = _dated(column.name, text, out)
    out = _calendar_said(name, text, out)
    return [e for e in out if not _names_the_data(e.words.lower(), text, e.start)]


_JOINING_PREFIXES = {"non", "semi", "sub", "multi", "anti", "pre", "post", "inter", "self", "co"}


def _prefixes_joined(words: list[Token], text: str) -> list[str]:
    """'non-residential' as one word, nonresidential: its beginning 'non' is what a name keeps (rnonc)."""
    out: list[str] = []
    for i, t in enumerate(words):
        if out and words[i - 1].text in _JOINING_PREFIXES and text[words[i - 1].end:t.start] == "-":
            out[-1] += t.text
        else:
            out.append(t.text)
    return out


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
           "december")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# 'training may take at most 15 minutes': the verb, not the month ('in may', 'may 1990', 'may and june' are the month)
_MODAL_MAY = re.compile(r"(?<!\bin )(?<!\bof )(?<!\bthe )(?<!\bto )(?<!\bby )(?<!\band )(?<!\bor )\bmay\s+(?!and\b|or\b|to\b|through\b|"
                        r"until\b|sales\b|data\b|dummy\b|column\b|indicator\b|\d)[a-z]+")


def _calendar_said(name: str, text: str, evidence: list[_Evidence]) -> list[_Evidence]:
    """A month's or a weekday's column (jan, mar, may, mon, sat) is named by its own name or the whole word alone,
    not by a word it begins ('market' is no mar) nor by the verb 'may'."""
    whole = next((w for w in (*_MONTHS, *_WEEKDAYS) if w[:3] == name or w == name), None)
    if whole is None:
        return evidence
    modal = [(m.start(), m.start() + 3) for m in _MODAL_MAY.finditer(text)] if name == "may" else []
    # ('January 1964 to December 1989', '3 May 2001' are dates)
    dated = [m.start(1) for m in re.finditer(rf"\b({whole}|{name})\b\.?(?=\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?(?:19|20)\d\d\b)",
                                             text)]
    dated += [m.start(1) for m in re.finditer(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?({whole}|{name})\b", text)]
    return [e for e in evidence if e.words.lower() in {name, whole, whole + "s"}
            and not any(a <= e.start < b for a, b in modal) and e.start not in dated]


_NAME_YEAR = re.compile(r"(?<=[A-Za-z._])((?:19|20)\d\d|\d\d)$")
_SAID_YEAR = r"(?<![\w.])(?:(?:19|20)(\d\d)|'(\d\d))(?![\w.])"


def _dated(name: str, text: str, evidence: list[_Evidence]) -> list[_Evidence]:
    """'the height in September 1997' is Hgt97, not Hgt96: where a name ends in a year and the words that say it
    come with a year in the same clause, the same year is stronger evidence and another year weaker."""
    year = _NAME_YEAR.search(name)
    if year is None:
        return evidence
    dated = []
    for e in evidence:
        before = re.split(r"[.;:,!?()]", text[max(0, e.start - 25):e.start])[-1]
        after = re.split(r"[.;:,!?()]", text[e.end:e.end + 40])[0]
        # the nearest year said ('the height in 1997 from the 1996 measurements' dates the height 1997)
        said = sorted([(len(before) - m.end(), m.group(1) or m.group(2)) for m in re.finditer(_SAID_YEAR, before)]
                      + [(m.start(), m.group(1) or m.group(2)) for m in re.finditer(_SAID_YEAR, after)])
        if said:
            e = replace(e, score=min(1.0, e.score + 0.05) if said[0][1] == year.group(1)[-2:] else e.score * 0.5)
        dated.append(e)
    return dated


def _explicit(text: str, columns: list[ColumnProfile]) -> ColumnProfile | None:
    """'target: X', 'label column X', 'y = X', 'the X column', 'X as the label', quoted or backticked names; not
    inside a list of inputs ('use `cement` and `water` as the only predictors')."""
    inputs = [(a, b) for _, a, b, _, _ in input_spans(text)] + _roles(text)["negated"]  # 'do not use the column low'
    for column in sorted(columns, key=lambda c: -len(c.name)):
        n = re.escape(column.name.lower())
        patterns = (
            rf"\b(?:target|tgt|label|lbl|outcome variable|dependent variable|response|y)\s*(?:column|variable|field)?\s*(?:is|=|:|-)?\s*[`'\"]?{n}(?![\w])",
            # a spec's key: '- outcome: personSearch', 'predict = churn'
            rf"(?:^|[;:.]\s*)(?:outcome|output|predict|to predict|predicting|objective|dependent)\s*[:=]\s*[`'\"]?{n}(?![\w])",
            rf"\b(?:the\s+)?[`'\"]?{n}[`'\"]?\s+(?:column|field|variable)\s+(?:as|is)\s+(?:the\s+)?(?:label|target|thing to predict|output)",
            rf"\b(?:predict|model|forecast|regression on|classify)\s+(?:the\s+)?(?:column\s+)?[`'\"]{n}[`'\"]",
            rf"\b(?:column|col\.?)\s+[`'\"]?{n}(?![\w])",  # 'col VanKilled'
            # 'the variable of interest is DriversKilled'
            rf"\b(?:variable|column|series|quantity|measure|outcome)\s+of\s+interest\s*(?:is|=|:|-)\s*[`'\"]?{n}(?![\w])",
            rf"(?<![\w]){n}[`'\"]?\s+as\s+(?:the\s+|our\s+|my\s+)?(?:label|target|outcome|output|y|thing to predict|dependent variable)\b",
            rf"[`]{n}[`]",
        )
        if any(not _within(m.start(), inputs) and not _SAID_NOT_USED_AFTER.match(text, m.end())
               and not _SAID_NOT_USED_BEFORE.search(text[max(0, m.start() - 24):m.start()])
               for p in patterns for m in re.finditer(p, text)):
            return column
    return None


# '... nor the column category', 'without the column id': a negation just before the name leaves it out
_SAID_NOT_USED_BEFORE = re.compile(r"\b(?:nor|not|no|without|except|excluding|neither|minus)\s+(?:the\s+|a\s+|any\s+)?$")
# 'the column choice must not be used', 'the column id is off limits': what follows a name says not to use it
_SAID_NOT_USED_AFTER = re.compile(r"[`'\"]?\s*(?:column|field|variable)?\s*(?:(?:must|should|may|can|will|is|are|has to|"
                                  r"needs to)\s*(?:not|n't|never)\b|(?:is|are|stays?|must stay|should stay)\s+"
                                  r"(?:off[- ]limits|out)\b|leaks?\b)")


_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "ninth": 9, "tenth": 10, "last": -1, "final": -1, "rightmost": -1, "leftmost": 1}
_POSITION = re.compile(r"\b(?:the\s+)?(?:(" + "|".join(_ORDINALS) + r")|(\d{1,3})(?:st|nd|rd|th))\s+(?:column|field)\b"
                       r"|\bcolumn\s+(?:no\.?\s*|number\s+|#\s*)?(\d{1,3})\b")


def _by_position(text: str, profile: DataProfile, columns: list[ColumnProfile],
                 roles: dict[str, list[tuple[int, int]]]) -> TargetDecision | None:
    """'it is the last column', 'the 3rd column', 'column 9': a file without a header row has no names to give.
    Not where the words list inputs or leave a column out, and not when a column has that number as its name."""
    inputs = [(a, b) for _, a, b, _, _ in input_spans(text)]
    names = [c.name for c in profile.columns]
    for match in _POSITION.finditer(text):
        if _within(match.start(), inputs) or _within(match.start(), roles["negated"]):
            continue
        word, ordinal, number = match.groups()
        if number is not None and number in names:
            continue
        place = _ORDINALS[word] if word else int(ordinal or number)
        if not names or abs(place) > len(names) or place == 0:
            continue
        name = names[place - 1] if place > 0 else names[place]
        if all(re.fullmatch(r"column_\d+", n) for n in names):  # named by place when read: a left-out column keeps its number
            numbers = sorted(int(n.split("_")[1]) for n in names)
            name = f"column_{numbers[-1] if place < 0 else place}"
        if name in {c.name for c in columns}:
            return TargetDecision(column=name, confidence="high", how="explicit",
                                  reason=f"the instruction points at {match.group(0).strip()!r}: {name!r}")
    return None


def _ranked(evidence: list[_Evidence]) -> list[_Evidence]:
    return sorted(evidence, key=lambda e: (-e.weighted, e.role != "target", e.start))


def _role(e: _Evidence, roles: dict[str, list[tuple[int, int]]], text: str) -> str:
    value = re.search(r"(?<![\w.])(\d[\d.,]*)\s*-?\s*$", text[max(0, e.start - 14):e.start])
    if value and value.group(1).rstrip(".,") not in e.column and not re.search(
            r"\d\s*(?:,\s*\d+\s*)*,?\s*(?:or|and|vs\.?|versus)\s+\d+\s*-?\s*$", text[max(0, e.start - 30):e.start]):
        # 'a 1.2 carat diamond', 'a 3-bedroom house': a value given, not asked for; 'a 4, 6 or 8 cylinder engine'
        # names the classes asked about
        return "feature"
    for role in ("data", "feature", "subject", "target"):
        key = "features" if role == "feature" else role
        if _within(e.start, roles[key]):
            return role
    return "none"


def _drop_modifiers(tied: list[_Evidence], text: str) -> list[_Evidence]:
    """In 'a smoking ban' the first word qualifies the second: when one tied column's words stand before another's in
    the same noun phrase ('major derogatory reports'), the last (the head of the phrase) is meant. A column's values
    said before a noun are no qualifier to drop: 'a public or a catholic school' asks which of them the school is."""
    def qualifies(e: _Evidence, o: _Evidence) -> bool:
        if e.how == "values":
            return False
        between = text[e.end:o.start] if o.start >= e.end else None
        if between is None or not re.fullmatch(r"[ -]?|\s+(?:[a-z]+\s+){1,2}", between) \
                or any(w in STOPWORDS for w in between.split()):
            return False
        after = re.match(r"\s*([a-z]+)", text[o.end:])
        return after is None or after.group(1) in STOPWORDS  # o ends the phrase: 'sale' in 'median sale price' does not
    return [e for e in tied if not any(o is not e and qualifies(e, o) for o in tied)]


def _drop_covered(tied: list[_Evidence]) -> list[_Evidence]:
    """'the education level of the mother' fits momEd by two words and mom by one of them: a column whose words are
    all inside another tied column's, which says more of the phrase, is not the one meant."""
    def covered(e: _Evidence, o: _Evidence) -> bool:
        # (words that stand together: 'price ... the total price' scattered over the sentence covers nothing)
        # (a word's meaning is weaker than words that spell a name: 'won' means draw's outcome, 'the challenger
        # won' spells challwin)
        return o.start <= e.start and e.end <= o.end and len(o.words.split()) > len(e.words.split()) \
            and set(e.words.split()) < set(o.words.split()) and o.score >= 0.6 \
            and (o.weighted >= e.weighted or (e.how == "concept" and o.how in ("words", "name")))
    return [e for e in tied if not any(o is not e and covered(e, o) for o in tied)]


def _drop_longer_names_of_a_name_said(tied: list[_Evidence]) -> list[_Evidence]:
    """'glm(choice ~ price1 + ...)' with choice and choiceid: the words said are one column's whole name, and only part
    of the other's; the column named whole is the one meant."""
    whole = {e.words.lower() for e in tied if e.how == "name" and e.words.lower() == e.column.lower()}
    return [e for e in tied if e.how == "name" or e.words.lower() not in whole or e.words.lower() not in e.column.lower()]


def _drop_owners(tied: list[_Evidence], text: str) -> list[_Evidence]:
    """'the ethnicity of the mother' with an ethn and a mom column: whose it is, said after 'of', is not what is meant
    when the thing itself names another tied column."""
    def owner(e: _Evidence, o: _Evidence) -> bool:
        return e.start >= o.end and bool(re.fullmatch(r"\s+of\s+(?:the\s+|a\s+|an\s+|his\s+|her\s+|their\s+|its\s+|each\s+)?",
                                                       text[o.end:e.start]))
    return [e for e in tied if not any(o is not e and owner(e, o) for o in tied)]


def _drop_transformed(tied: list[_Evidence], text: str) -> list[_Evidence]:
    """cpi and lcpi (its log) fit 'the consumer price index' alike: the plain one is meant unless the words say log;
    cpi and gcpi (its growth) alike: the plain one unless the words ask for a rate of change."""
    names = {e.column for e in tied}

    def dropped(e: _Evidence) -> bool:
        for other in names:
            made = transform_of(other, e.column)  # other is e's column changed: dropped when the change is asked
            if made is not None and asked(made, text):
                return True
            made = transform_of(e.column, other)  # e's column is other changed: dropped when it is not
            if made is not None and not asked(made, text):
                return True
        return False
    return [e for e in tied if not dropped(e)]


def _transform_said_of(top: _Evidence, found: list[_Evidence], text: str) -> _Evidence:
    """'predict the log of the pay' with salary and lsalary: the words said after 'log of' name the plain column more
    strongly (pay means salary), but the log is asked for, so its log column is the one meant. The mention in the
    target's clause decides, wherever the plain column was said before ('(pay of 177 CEOs) ... predict the log of
    the pay'). So for a standardized score ('the final exam, measured in standard deviations': stndfnl)."""
    def changed(e: _Evidence) -> _Evidence | None:
        return next((o for o in found if o.start == e.start and o.column != e.column
                     and (made := transform_of(o.column, e.column)) is not None and asked_at(made, text, e.start, e.end)),
                    None)
    for e in [top, *(e for e in found if e.role in ("target", "subject") and e.start != top.start)]:
        column = changed(e)
        if column is not None:
            return column
    return top


def _changed_forms_said(said_of: dict[str, list[_Evidence]], columns: list[ColumnProfile], text: str) -> None:
    """'how students do on the final exam, measured in standard deviations' with final and stndfnl: where the words
    around a column's mention ask for a change of it that another column holds, that mention says the changed column
    too, as strongly (whether or not its name was spelt there)."""
    for changed in columns:
        for plain in columns:
            made = transform_of(changed.name, plain.name) if plain is not changed else None
            if made is None or not asked(made, text):
                continue
            for e in said_of.get(plain.name, []):
                if asked_at(made, text, e.start, e.end) and not any(o.start == e.start for o in said_of[changed.name]):
                    said_of[changed.name].append(_Evidence(changed.name, e.score, "transform", e.words, e.start, e.end))


# how strongly a word that only begins several names says each of them
_SHARED_BEGINNING = 0.45


def _shared_beginnings(said_of: dict[str, list[_Evidence]], columns: list[ColumnProfile], toks: list[Token],
                       text: str) -> None:
    """'the favourite' with fav25, favwin, favhome and favscr: a word whose beginning is the start several names
    share says whose they are, not which: it is weak evidence for each of them alike, so a word that says the rest of
    one ('won' for favwin) decides, and without one the run asks. (An inflection is the word itself: 'the ages' is
    age said, whatever agegroup begins with.)"""
    names = [c.name for c in columns]
    for t in toks:
        if len(t.text) < 5 or t.text in STOPWORDS or not t.text.isalpha():
            continue
        shared = ""
        for k in range(len(t.text) - 1, 2, -1):
            if sum(n.lower().startswith(t.text[:k]) for n in names) >= 2:
                shared = t.text[:k]
                break
        if not shared or stem(t.text) == stem(shared):
            continue
        family = [n for n in names if n.lower().startswith(shared)]
        # ('unemployed for all of 1998' with unem96 and unem98: a number said beside the word says the rest of one)
        near = text[max(0, t.start - 60):t.end + 60]
        numbered = [n for n in family if (rest := re.fullmatch(r"[a-z]*?(\d{2,4})", n.lower()[len(shared):]))
                    and re.search(rf"(?<![\d.])(?:\d{{0,2}}){rest.group(1)}(?![\d])", near)]
        for name in family:
            here = [e for e in said_of[name] if e.start <= t.start < e.end]
            for e in here:
                # the word alone says as much of any of them, unless it says the whole of one name ('the cigarettes'
                # is cigs, beside cigprice and cigtax; fav25's number is left unsaid)
                if e.how == "words" and e.words == t.text and "".join(name_parts(name).words) != name.lower():
                    e.score = min(e.score, _SHARED_BEGINNING)
            if not here:
                said_of[name].append(_Evidence(name, _SHARED_BEGINNING, "words", t.text, t.start, t.end))
        if len(numbered) == 1:
            said_of[numbered[0]].append(_Evidence(numbered[0], 0.8, "words", t.text, t.start, t.end))


def _shared_acronym(said_of: dict[str, list[_Evidence]], columns: list[ColumnProfile], toks: list[Token]) -> None:
    """'the antral follicle count' with LowAFC and MeanAFC: words that spell an acronym several names end in say whose
    the column is, not which; weak evidence for each alike, so a qualifier said ('the mean ...') decides and without
    one the run asks."""
    for i, length, family in acronyms_spelt([t.text for t in toks], [c.name for c in columns]):
        run = toks[i:i + length]
        before = toks[i - 1] if i > 0 else None
        for name in family:
            qualifier = name[:-length].lower()
            if before is not None and before.text.startswith(qualifier):  # 'the mean ...' MeanPEF, 'lowest' Low
                said_of[name].append(_Evidence(name, 0.8, "words", f"{before.text} {' '.join(t.text for t in run)}",
                                               before.start, run[-1].end))
            elif not any(e.start <= run[0].start and run[-1].end <= e.end for e in said_of[name]):
                said_of[name].append(_Evidence(name, _SHARED_BEGINNING, "words", " ".join(t.text for t in run),
                                               run[0].start, run[-1].end))


def _letter_before_a_family(said_of: dict[str, list[_Evidence]], columns: list[ColumnProfile], text: str) -> None:
    """ctuit beside tuit17 and tuit18: one letter before a beginning two other names share is a change made to them
    (c for change), not a word of its own, so 'the college tuition' spells it only by chance: as weak as the family's
    beginning, unless a change is asked for."""
    if asked(GROWTH, text):
        return
    for column in columns:
        rest = column.name.lower()[1:]
        # (a family of dated or qualified forms; where the rest is a name of its own, as runs beside hruns, the letter
        # is a word said before it: 'home runs')
        family = [o for o in columns if o is not column and o.name.lower().startswith(rest)]
        if len(rest) < 3 or len(family) < 2 or any(o.name.lower() == rest for o in family):
            continue
        for e in said_of[column.name]:
            if e.how == "words" and " " in e.words:
                e.score = min(e.score, _SHARED_BEGINNING)


# what a name adds to a count to make it a rate: totfatrte (a rate), totfatpvm (per vehicle mile), incpc (per capita)
_RATE_REST = re.compile(r"(?:rte|rate|rt|p[a-z]{1,3})")
# 'the fatality rate', 'deaths per 100 million vehicle miles', 'per 100,000 residents', 'per capita'
_RATE_AFTER = re.compile(r"\s*(?:(?:rates?|ratio)\b|(?:per|for\s+(?:every|each)|for(?=\s+\d))\s+(?P<per>(?:[\d.,]+\s*)?(?:(?:hundred|thousand|million|billion)\s+)*"
                         r"[a-z][a-z ]{0,40}))")
_MAGNITUDES = frozenset({"hundred", "thousand", "million", "billion", "k", "m"})
_RATE_BEFORE = re.compile(r"\b(?:rates?|ratio)\s+of\s+(?:the\s+)?$")


def _rate_forms_said(said_of: dict[str, list[_Evidence]], columns: list[ColumnProfile], text: str) -> None:
    """'the traffic fatality rate' with totfat, totfatrte and totfatpvm: a count said as a rate is not the count; the
    rate columns of its family are meant, the one whose letters after p spell the words after 'per' ('per 100 million
    vehicle miles' is totfatpvm), else, where those words spell none ('per 100,000 residents'), the family's plain
    rate; 'rate' alone fits every rate of the family alike, so the run asks which."""
    for base in columns:
        low = base.name.lower()
        rates = [c.name for c in columns if c is not base and c.name.lower().startswith(low)
                 and _RATE_REST.fullmatch(c.name.lower()[len(low):])]
        if not rates:
            continue
        for e in [e for e in said_of[base.name] if e.how in ("words", "name", "concept")]:
            after = _RATE_AFTER.match(text, e.end)
            if after is None and not _RATE_BEFORE.search(text[max(0, e.start - 30):e.start]):
                continue
            meant = rates
            if after is not None and after.group("per"):
                words = [w for w in after.group("per").split() if w not in STOPWORDS and w not in _MAGNITUDES
                         and not w[0].isdigit()][:4]
                initials = "".join(w[0] for w in words)
                per_rates = [r for r in rates if r.lower()[len(low):].startswith("p")]
                spelt = [r for r in per_rates if initials.startswith(r.lower()[len(low) + 1:])]
                meant = spelt or [r for r in rates if r not in per_rates] or rates
            end = after.end() if after is not None else e.end
            for rate in meant:
                said_of[rate].append(_Evidence(rate, e.score + 0.05, "words", text[e.start:end].strip(),
                                               e.start, end))
            e.score = min(e.score, _SHARED_BEGINNING)


def _answer_kind(text: str) -> str | None:
    """What kind of answer the sentence asks for: a yes or no ('will this customer churn?', 'whether ...'), a
    quantity ('how many visitors ...'), or None."""
    if re.search(r"(?:^|[.!?]\s*)(?:will|would|is|are|does|do|did|has|have|can)\s+(?!you\b|we\b|i\b)[^.?!]*\?", text) \
            or re.search(r"\bwhether\b|\byes\s*(?:/|or)\s*no\b|\by\s*/\s*n\b|\bor not\b", text):
        return "binary"
    if re.search(r"\bhow (?:much|many|long|late|high|low|big|far|heavy|fast|strong|busy|often|well|badly)\b", text):
        return "number"
    return None


def _one_of_n(text: str) -> int | None:
    """'which of the four brands the shopper bought': the answer is one of N categories."""
    m = re.search(r"\bwhich\s+(?:one\s+)?of\s+(?:the\s+|these\s+|those\s+)?(\d+|[a-z]+)\s+[a-z]+", text)
    if not m:
        return None
    n = int(m.group(1)) if m.group(1).isdigit() else NUMBER_WORDS.get(m.group(1))
    return n if isinstance(n, int) and 2 < n <= 50 else None


def _the_one_of_n(text: str, named: ColumnProfile | None, candidates: list[ColumnProfile]) -> TargetDecision | None:
    """'which of the four brands the shopper bought': the one column of four categories, unless the column the words
    name has four values itself."""
    n = _one_of_n(text)
    if n is None or (named is not None and named.n_unique == n):
        return None
    classes = [c for c in candidates if c.n_unique == n and c.kind in ("categorical", "text")]
    if len(classes) != 1:
        return None
    return TargetDecision(column=classes[0].name, confidence="medium", how="answer",
                          reason=f"the instruction asks which of {n} and {classes[0].name!r} is the only column of {n} "
                                 "categories")


def _fitting_answer(tied: list[_Evidence], text: str, profile: DataProfile) -> list[_Evidence]:
    """Among columns the words fit equally, the ones that can answer the question asked: two-valued for a yes/no
    question, a quantity for 'how many'."""
    kind = _answer_kind(text)
    if kind is None:
        return tied
    def fits(e: _Evidence) -> bool:
        column = profile.column(e.column)
        if kind == "binary":
            return column.n_unique == 2
        return column.kind == "numeric" and column.n_unique > 10
    fitting = [e for e in tied if fits(e)]
    return fitting or tied


def decide_target(instruction: str, profile: DataProfile, flag: str | None = None,
                  semantic=None) -> TargetDecision:
    """The target decision for this instruction on this data. `semantic(phrase, descriptions) -> similarities`
    is the sentence encoder, used only when words say nothing; None to skip it."""
    text = instruction.lower()
    decision = _of_the_kind_asked(_decided(instruction, profile, flag, semantic), text, profile)
    decision = _an_amount_of_an_activity(_an_amount_of_a_yes_no(decision, text, profile), text, profile)
    return _one_answer_in_two_codings(decision, text, profile)


# 'predict how fast ...', 'tell how far ...': the kind of amount asked, and the name parts columns of that kind hold
_HOW_KIND = re.compile(r"\b(?:predict\w*|forecast\w*|estimat\w*|know|tell|guess\w*)\s+(?:\w+\s+){0,2}?how\s+"
                       r"(fast|quick(?:ly)?|far|heavy|tall)\b")
_KIND_STEMS = {"fast": ("speed", "velocity", "mph", "kph"), "quick": ("speed", "velocity", "mph", "kph"),
               "far": ("dist", "miles", "km"), "heavy": ("weight", "wt", "kg", "mass"), "tall": ("height", "hgt")}


def _one_answer_in_two_codings(decision: TargetDecision, text: str, profile: DataProfile) -> TargetDecision:
    """'predict how a respondent answers' on a table with the answer (no/perhaps/yes) and its recoding (N/Y): words
    that fit the answer fit both codings, and the run asks which, unless the words name one of them or its values."""
    column = _chosen(decision, profile)
    if column is None or decision.ask or decision.how not in {"words", "concept", "meaning"}:
        return decision
    codings = [*column.collapsed_in, *(c.name for c in profile.columns if column.name in c.collapsed_in)]
    if not codings or any(re.search(rf"(?<![\w.]){re.escape(n.lower())}(?![\w])", text) for n in [column.name, *codings]):
        return decision
    candidates = [column.name, *codings][:4]
    return TargetDecision(column=None, confidence="low", how="tie", ask=True, candidates=candidates, scores=decision.scores,
                          reason=f"the words fit {column.name!r}, and {', '.join(repr(n) for n in codings)} "
                                 f"{'says' if len(codings) == 1 else 'say'} the same answer in fewer values")


def _chosen(decision: TargetDecision, profile: DataProfile) -> ColumnProfile | None:
    """The column the words chose (not one given with --target)."""
    return profile.column(decision.column) if decision.column and decision.how != "flag" else None


def _of_the_kind_asked(decision: TargetDecision, text: str, profile: DataProfile) -> TargetDecision:
    """'predict how fast the ball is ...' with BallCount, StartSpeed, EndSpeed: the kind of amount asked names the
    columns; one that is not of that kind is not the answer, whatever word of it was said, and the run asks which."""
    column, kind = _chosen(decision, profile), _HOW_KIND.search(text)
    if column is None or kind is None:
        return decision
    stems = _KIND_STEMS[kind.group(1).removesuffix("ly")]
    of_kind = [c.name for c in profile.columns if c.kind == "numeric" and any(st in c.name.lower() for st in stems)]
    if not of_kind or column.name in of_kind:
        return decision
    return TargetDecision(column=None, confidence="low", how="tie", ask=True, candidates=of_kind[:4],
                          scores=decision.scores, reason=f"the instruction asks how {kind.group(1)}, and "
                                                         f"{decision.column!r} is not of that kind")


def _an_amount_of_a_yes_no(decision: TargetDecision, text: str, profile: DataProfile) -> TargetDecision:
    """'how much each mother worked' with worked (0/1), weeks and hours: an amount asked of a column that only says
    yes or no is not that column; the run asks which amount, the columns counted in time first ('worked' is hours or
    weeks of it)."""
    column = _chosen(decision, profile)
    if column is None or column.n_unique != 2:
        return decision
    word = re.escape(decision.column.lower())
    if not re.search(rf"\bhow\s+(?:much|long|many\s+[\w-]+)\s+(?:[\w'-]+\s+){{0,3}}{word}\b", text):
        return decision
    amounts = [c.name for c in profile.columns if c.kind == "numeric" and c.n_unique > 2 and c.name != column.name]
    timed = [n for n in amounts if any(unit in n.lower() or unit.rstrip("s") == n.lower() for unit in COUNTED_IN_TIME)]
    candidates = [*timed, *(n for n in amounts if n not in timed)][:4]
    return TargetDecision(column=None, confidence="low", how="tie", ask=True, candidates=candidates,
                          scores=decision.scores, reason=f"the instruction asks how much of {decision.column!r}, "
                                                         "which only says yes or no")


def _own_names(profile: DataProfile) -> set[str]:
    """The names the data goes by that no column bears and no dictionary holds: its file's stem and, for a package's
    table, the package ('sampleSelection__nlswork'); a table called 'catholic' or 'birds' is also a word of what is
    asked ('lycée catholique')."""
    stem = Path(profile.path).stem.lower() if getattr(profile, "path", None) else ""
    columns = {c.name.lower() for c in profile.columns}
    vocabulary = english_vocabulary()
    return {n for n in {stem, *stem.split("__")} if len(n) >= 3 and n not in columns and n not in vocabulary
            and n.removesuffix("s") not in vocabulary}


def _counted_in_time(name: str) -> bool:
    """'hours', 'wks_work', 'days_absent': a column whose name says a unit of time shorter than a year, said whole or
    shortened (a name with a year in it is as often a date as an amount: year, birth_yr)."""
    return any(part == unit or part == unit.rstrip("s") or shortens(part, unit)
               for part in name_parts(name).words for unit in COUNTED_IN_TIME - {"years"})


# 'how much the woman is working', 'how long each of them worked': an amount of what someone does
_HOW_MUCH_DONE = re.compile(r"\bhow\s+(?:much|long)\s+(?:[\w'-]+\s+){0,3}?(?:(?:is|are|was|were|has|have|had)\s+)?"
                            r"([a-z]+(?:ing|ed|s))\b")


def _an_amount_of_an_activity(decision: TargetDecision, text: str, profile: DataProfile) -> TargetDecision:
    """'how much the woman is working' with wks_work (weeks worked) and hours (hours a week): an amount of an activity
    said by its verb alone is as much its hours as its weeks; where the chosen column is counted in time and another
    column is too, the run asks which."""
    if decision.ask or decision.column is None or decision.how not in ("words", "concept"):
        return decision
    asked = _HOW_MUCH_DONE.search(text)
    if asked is None or stem(asked.group(1)) not in decision.column.lower() or not _counted_in_time(decision.column):
        return decision
    timed = [c.name for c in profile.columns if c.kind == "numeric" and c.n_unique > 2 and _counted_in_time(c.name)]
    if len(timed) < 2:
        return decision
    others = [n for n in timed if n != decision.column]
    return TargetDecision(column=None, confidence="low", how="tie", ask=True,
                          candidates=[decision.column, *others][:4], scores=decision.scores,
                          reason=f"the instruction asks how much is done ({asked.group(1)!r}): "
                                 f"{' or '.join([decision.column, *others][:4])} each count it in time")


def _decided(instruction: str, profile: DataProfile, flag: str | None, semantic) -> TargetDecision:
    columns = eligible_columns(profile)
    if flag is not None:
        return TargetDecision(column=flag, confidence="given", how="flag", reason="--target")
    text = expand_shorthand(instruction.lower())
    toks = tokens(text)
    if profile.graph is not None and columns:
        named = _explicit(text, [c for c in profile.columns if c.name in profile.target_candidates]) or next(
            (c for c in profile.columns if c.name in profile.target_candidates
             and any(e.score >= 0.7 for e in column_mentions(c, text, toks))), None)
        label = named.name if named is not None else columns[0].name
        return TargetDecision(column=label, confidence="high", how="name" if named is not None else "graph",
                              reason=f"the instruction says {label!r}" if named is not None
                              else f"the graph's node labels ({label!r})")
    explicit = _explicit(text, columns)
    if explicit is not None:
        return TargetDecision(column=explicit.name, confidence="high", how="explicit",
                              reason=f"the instruction names the column {explicit.name!r}")
    roles = _roles(text)
    positional = _by_position(text, profile, columns, roles)
    if positional is not None:
        return positional
    found: list[_Evidence] = []
    excluded: list[str] = []
    # where a column is named in full: the words inside it ('health' in 'health_ins') name no other column
    # (or with spaces for its underscores and dots: 'home run' for home_run holds 'run', another column)
    spans = [(m.start(), m.end(), c.name) for c in columns if len(c.name) > 2
             for spelling in {c.name.lower(), re.sub(r"[_.]", " ", c.name.lower()), spelled_out(c.name) or c.name.lower()}
             for m in re.finditer(rf"(?<![\w.]){re.escape(spelling)}(?![\w])", text)]
    # and what is said right after a name to gloss it ('lprice, the log house price, on ...', 'the assess column
    # (assessed value of house)'): the words describe that column and name no other
    # ('the spread-covered flag' is sprdcvr: spread inside it names nothing of its own)
    compounds = compounds_spelt(text, [c.name for c in columns])
    spans = [(a, b, name) for a, b, name in spans
             if not any(x <= a and b <= y and name != spelt for x, y, spelt in compounds)]
    named_in_full = list(spans)
    spans += [(b, end, name) for a, b, name in list(spans) if (end := gloss_after(text, a, b, name)) is not None]
    # words that spell a name never take in another column's whole name, unless it stands in this name ('temperature,
    # ausAVt' spells no tasAVt; 'the log price' spells lprice)
    # (a word that is another column's whole name, this one's and more, names that column only: 'except educsq'
    # says nothing of educ)
    whole_names = {c.name.lower() for c in columns if len(c.name) > 2}
    said_of = {c.name: [e for e in column_mentions(c, text, [t for t in toks if t.text not in whole_names
                                                                 or c.name.lower() not in t.text
                                                                 or t.text == c.name.lower()])
                        if e.how != "words" or not any(e.start <= a and b <= e.end and name.lower() not in c.name.lower()
                                                       for a, b, name in named_in_full)]
               for c in columns}
    for name in said_of:
        said_of[name] = [e for e in said_of[name]
                         if not any(x <= e.start and e.end <= y and name != spelt for x, y, spelt in compounds)]
    _changed_forms_said(said_of, columns, text)
    _shared_beginnings(said_of, columns, toks, text)
    _shared_acronym(said_of, columns, toks)
    _letter_before_a_family(said_of, columns, text)
    _rate_forms_said(said_of, columns, text)
    # and where words spell a name together ('the husband wage' for huswage, 'family income' for faminc), one of
    # them names no other column ('wage', or 'income' for wage)
    # (not the initials of a two-letter name: 'health index' may be hi, and its 'health' still hlth)
    spans += [(e.start, e.end, name) for name, found_for in said_of.items() for e in found_for
              if e.how == "words" and e.score >= 0.8 and len(e.words.split()) >= 2 and len(name) > 2]
    row_unit = _row_unit(profile, text)
    windows = window_spans(text)  # 'for the coming year' names no column called Year
    # ('month over month', 'year on year' say how a change is measured, no month or year column)
    windows += [(m.start(), m.end()) for m in re.finditer(
        r"\b(?:month|year|quarter|week|day)\s+(?:over|on|to)\s+(?:month|year|quarter|week|day)\b", text)]
    windows += _settings(text)
    # the data's own names where no column bears them ('(sampleSelection pkg)', 'the nlswork table'): no column is said
    # inside them
    windows += [(m.start(), m.end()) for name in _own_names(profile)
                for m in re.finditer(rf"(?<![\w.]){re.escape(name)}(?![\w])", text)]
    every_mention: list[_Evidence] = []  # each column's every mention; `found` keeps its strongest
    for column in columns:
        mentions = [e for e in said_of[column.name]
                    if not any(a <= e.start and e.end <= b and (b - a) > (e.end - e.start) and name != column.name
                               for a, b, name in spans)
                    and (e.how == "transform" or not _within(e.start, windows))
                    and not (row_unit and (e.start, e.end) in row_unit and e.words.lower() != column.name.lower())]
        kept = [e for e in mentions if not _within(e.start, roles["negated"])]
        if mentions and (not kept or any(e.how == "name" and _within(e.start, roles["negated"]) for e in mentions)):
            # 'from everything except bwt': a column left out by name is not the target, whatever else says it
            excluded.append(column.name)
            continue
        for e in kept:
            e.role = _role(e, roles, text)
        strongest = max((e.score for e in kept), default=0.0)
        # (not when the input's words say it less than the others: 'height' in 'explained by the mid-parent height'
        # does not make the 'childHeight' said before an input)
        if any(e.role == "feature" and e.how != "values" and e.score >= strongest for e in kept) \
                and not any(e.role == "target" for e in kept):
            # 'from their age, ..., the survey year': a column given as an input, mentioned again elsewhere in words
            # that say nothing of its role ('earns per year'), is still an input
            for e in kept:
                e.role = "feature"
        if kept:
            found.append(_ranked(kept)[0])
            every_mention += kept
    scores = {e.column: round(e.weighted, 3) for e in _ranked(found)}
    # a column the instruction gives as an input is not what it asks for, unless nothing else is named
    # (values said among the inputs make no column an input: 'the prices of Yoplait, Dannon, ...' name choice's values)
    inputs = {e.column for e in found if e.role == "feature" and e.how != "values"}
    if any(e.role != "feature" and e.weighted >= 0.2 for e in found):
        found = [e for e in found if e.role != "feature"]
    # 'from their age, ..., the survey year and their work status': when every column named is an input, what to
    # predict is among the others (by meaning, or asked), never one of the inputs
    only_inputs = len(found) > 1 and all(e.role == "feature" for e in found) and not any(
        _forecasts_its_own_history(text, profile.column(e.column), list(profile.target_candidates))
        for e in found)  # a forecast's history is its target
    ranked = [] if only_inputs else _ranked(found)
    if ranked and ranked[0].weighted >= 0.2:
        # what the target clause says wins over comparable mentions elsewhere in the text
        said = [e for e in ranked if e.role == "target" and e.weighted >= ranked[0].weighted * 0.75]
        top = _transform_said_of(said[0] if said else ranked[0], every_mention, text)
        tied = [top] + [e for e in ranked if e.column != top.column and e.weighted >= top.weighted * 0.75 and not (
            top.role == "target" and e.role != "target")]
        tied = _drop_modifiers(tied, text) if len(tied) > 1 else tied
        tied = _drop_covered(tied) if len(tied) > 1 else tied
        tied = _drop_owners(tied, text) if len(tied) > 1 else tied
        tied = _drop_transformed(tied, text) if len(tied) > 1 else tied
        tied = _fitting_answer(tied, text, profile) if len(tied) > 1 else tied
        tied = _drop_longer_names_of_a_name_said(tied) if len(tied) > 1 else tied
        if len(tied) > 1 and top.how != "values" and all(e.how == "values" for e in tied if e is not top):
            tied = [top]  # values several columns share ('Oui or Non') do not outweigh the one column named
        if len(tied) == 1 and tied[0].role == "subject" and top.how != "values" and (
                _within(tied[0].start, roles["unit"]) or named_as_id(tied[0].column)
                # ('a county's residents': the entity that owns what is asked; 'Microsoft's price' is the MSFT column)
                or (re.match(r"'s?\b", text[tied[0].end:tied[0].end + 2])
                    and profile.column(tied[0].column).kind in {"categorical", "identifier", "text"})):
            # 'the ticket price of each flight': the only column named is what the rows are, not what to predict
            # ('which treatment a plot received': plot_id names the plot, not its treatment)
            others = [c for c in profile.target_candidates if c != tied[0].column and c not in excluded][:2]
            return TargetDecision(column=None, confidence="low", how="subject only", ask=True,
                                  candidates=[tied[0].column, *others], scores=scores,
                                  reason=f"the instruction names {tied[0].column!r} only as what each row is "
                                         f"({tied[0].words!r}), not as what to predict")
        others = [e for e in ranked if e is not tied[0] and e.role != "feature" and e.weighted >= 0.2]
        if len(tied) == 1 and others and _points_back_at_two(text):
            names = [tied[0].column, *[e.column for e in others]][:4]
            return TargetDecision(column=None, confidence="low", how="tie", ask=True, candidates=names, scores=scores,
                                  reason="the instruction describes two columns and asks for 'it' without saying which")
        if len(tied) == 1 and tied[0].role != "feature":
            top = tied[0]
            answer = _the_one_of_n(text, profile.column(top.column), [c for c in columns if c.name not in inputs
                                                                       and c.name not in excluded])
            if answer is not None:  # 'which of the three brands the shopper took': not the shopper column
                return answer
            confidence: Confidence = "high" if top.weighted >= 0.7 else "medium"
            return TargetDecision(column=top.column, confidence=confidence, how=top.how, scores=scores,
                                  reason=_reason(top))
        names = [e.column for e in tied]
        if len(tied) == 1 and _forecasts_its_own_history(text, profile.column(tied[0].column),
                                                         list(profile.target_candidates)):
            top = tied[0]
            return TargetDecision(column=top.column, confidence="medium", how=top.how, scores=scores,
                                  reason=f"{_reason(top)}; a forecast reads the series' own past")
        if len(tied) == 1:  # only an input was named: never train on a column the user gave as an input
            names += [c.name for c in columns if c.name not in inputs and c.name not in excluded][:2]
            return TargetDecision(column=None, confidence="low", how="inputs only", ask=True, candidates=names[:3],
                                  scores=scores, reason=f"the instruction names {tied[0].column!r} only as an input")
        return TargetDecision(column=None, confidence="low", how="tie", ask=True, candidates=names[:4], scores=scores,
                              reason=f"the instruction fits several columns equally ({', '.join(names[:4])})")
    # (the inputs named say nothing of what is asked for: "model the parents' schooling from income, ...")
    absent = _asked_for_but_absent(text, {c: v for c, v in scores.items() if c not in inputs})
    remaining = [c for c in columns if c.name not in excluded and c.name not in inputs] or [
        c for c in columns if c.name not in excluded]
    if len(remaining) == 1:
        return TargetDecision(column=remaining[0].name, confidence="high", how="only", scores=scores,
                              reason=f"{remaining[0].name!r} is the only column a model can predict here")
    # ('la serie desestacionalizada' of a table holding hs and hssa only: one series and its changed form, the change
    # asked for)
    changed = [c.name for c in remaining for o in remaining
               if o is not c and (made := transform_of(c.name, o.name)) is not None and asked(made, text)]
    if len(changed) == 1 and len(remaining) == 2:
        return TargetDecision(column=changed[0], confidence="medium", how="words", scores=scores,
                              reason=f"the table holds one series and {changed[0]!r}, its changed form the words ask for")
    from_file = _filename_match(profile.path, remaining) if not absent else None
    if from_file is not None:
        return TargetDecision(column=from_file, confidence="medium", how="filename", scores=scores,
                              reason=f"the data file is named {Path(profile.path).name!r}")
    similarities = _similarities(text, remaining, semantic) if semantic is not None and remaining else {}
    if similarities:
        meant = _meaning(similarities)
        if meant is not None:
            column, similarity = meant
            return TargetDecision(column=column, confidence="medium", how="meaning", scores=scores,
                                  reason=f"closest in meaning to what the instruction asks for (similarity {similarity:.2f})")
    yes_no = [c for c in remaining if c.n_unique == 2]
    if _answer_kind(text) == "binary" and len(yes_no) == 1:
        return TargetDecision(column=yes_no[0].name, confidence="medium", how="answer", scores=scores,
                              reason=f"the instruction asks a yes/no question and {yes_no[0].name!r} is the only "
                                     "two-valued column")
    answer = _the_one_of_n(text, None, remaining)
    if answer is not None:
        return answer
    ordered = [c for c in profile.target_candidates if c in {r.name for r in remaining}]
    if similarities:
        ordered = sorted(similarities, key=lambda c: -similarities[c])
    # (the setting of 'how well they do in the course' touches no candidate: it is not what is asked for)
    setting = {w for a, b in _settings(text) for w in re.findall(r"[\w-]+", text[a:b])}
    phrase = " ".join(w for w in (target_phrase(text) or text).split() if w.lower() not in setting)
    ordered = _touched_first(phrase, ordered or [c.name for c in remaining])
    ordered = _answer_kind_first(text, ordered, profile)
    ordered = _numbered_first(text, ordered, [c.name for c in remaining])
    return TargetDecision(column=None, confidence="low", how="none", ask=True, candidates=ordered[:3], scores=scores,
                          reason=f"no column of the data answers to {absent!r}: the table may not hold it" if absent
                          else "the instruction names no column of the data")


# words of a target phrase that say nothing of what is asked for ('the value', 'each one', 'how much')
_EMPTY_WORDS = {"each", "every", "s", "how", "much", "many", "number", "value", "values", "outcome", "outcomes", "result",
                "results", "target", "label", "labels", "it", "its", "this", "that", "them", "amount", "level", "will",
                "be", "is", "are", "was", "what", "when", "where", "in", "per", "new", "future", "next", "later", "row",
                "rows", "record", "records", "one", "ones", "all", "please", "pls", "for", "me", "us", "their", "his", "her",
                "whose", "going", "likely", "probability", "chance", "score", "class", "category", "kind", "type", "here",
                "now", "then", "also", "just", "only", "accurately", "well", "exactly", "precisely", "again", "too",
                "good", "great", "best", "better", "accurate", "simple", "nice", "quick", "fast", "decent", "robust",
                "reliable", "solid", "strong", "small", "tiny", "light", "model", "models", "something", "anything"}


# 'one says if they live in the South, the other if they live in a city. My manager wants a classifier for it.'
_ONE_AND_THE_OTHER = re.compile(r"\bone\b[^.;]*?\bthe other\b|\bonce\b[^.;]*?\bonce\b|"
                                r"\b(?:two|both)\s+(?:[\w/-]+\s+)?(?:forms|versions|columns|variables|fields|measures|kinds|ways)\b")
_FOR_IT = re.compile(rf"\b(?:(?:{TARGET_VERBS})|(?:classifier|classification|model|predictor|regressor|regression|forecast|estimate)\s+(?:for|of))\s+"
                     r"(?:it|this|that|this one|that one)\b")


def _points_back_at_two(text: str) -> bool:
    """Two things described ('one ..., the other ...', 'the price in two forms, once as paid and once in 1978
    dollars'), then a request that names neither, only 'it': which one is meant is not said, whichever the words fit
    a little better."""
    first = _ONE_AND_THE_OTHER.search(text)
    return bool(first) and bool(_FOR_IT.search(text, first.end()))


# 'how well each student will do in the math course': where one does well names the setting, not the outcome
_SETTING = re.compile(r"\b(?:do|does|did|doing|perform(?:s|ed|ing)?|fares?|fared)\s+(?:well\s+|badly\s+|best\s+|"
                      r"poorly\s+)?(?:in|at|on)\s+((?:the|their|his|her|its|a|an|each)\s+(?:[\w-]+\s+){0,2}[\w-]+)")


def _settings(text: str) -> list[tuple[int, int]]:
    return [(m.start(1), m.end(1)) for m in _SETTING.finditer(text)]


def _answer_kind_first(text: str, names: list[str], profile: DataProfile) -> list[str]:
    """The candidates of a question, those that can give the kind of answer asked for first: 'how well each kid does
    on the test' asks for a quantity (the scores, not the class type); 'whether ...' for a yes or no. Only the order
    of the candidates offered."""
    kind = _answer_kind(text)
    if kind is None:
        return names

    def fits(name: str) -> bool:
        column = profile.column(name)
        if column is None:
            return False
        if kind == "binary":
            return column.n_unique == 2
        return column.kind == "numeric" and column.n_unique > 2 and not named_as_id(name)
    return sorted(names, key=lambda name: not fits(name))


def _numbered_first(text: str, names: list[str], columns: list[str]) -> list[str]:
    """The candidates of a question, the columns whose names hold a number the instruction says first ('how fast
    sector 232 is growing': emp232, wage232 and their growth gemp232, gwage232), those led by a growth letter first
    when a rate of change is asked for. Only the order of the candidates offered."""
    numbers = {n for n in re.findall(r"(?<![\d.,])(\d{2,})(?![\d.,])", text) if not 1800 <= int(n) <= 2100}
    numbered = [c for c in columns if any(re.search(rf"(?<!\d){n}(?!\d)", c) for n in numbers)]
    if not numbered:
        return names
    if asked(GROWTH, text):
        numbered.sort(key=lambda c: not re.match(r"[gd][a-z]{2,}", c.lower()))
    return numbered + [n for n in names if n not in numbered]


def _touched_first(phrase: str, names: list[str]) -> list[str]:
    """The candidates of a question, those whose names hold a word of the phrase first ('short-term departures':
    resshort and visshort; 'the parent's years of schooling': motheduc and fatheduc, educ being schooling's
    concept). Only the order of the candidates offered: nothing is decided by it."""
    words = {t.text for t in tokens(phrase) if len(t.text) >= 4 and t.text not in STOPWORDS}
    parts = {w for word in words for w in (word, stem(word), *concept_synonyms(word)) if len(w) >= 4}

    # (and a word's first three letters ending a coded name: 'the cement index' touches prccem and ipcem, 'health
    # care' lnmed through 'medical')
    beginnings = {w[:3] for w in parts if len(w) >= 5}

    def touched(name: str) -> int:
        low = name.lower()
        return sum(1 for part in parts if part in low) + sum(
            1 for b in beginnings if low.isalpha() and len(low) > 4 and low.endswith(b) and low not in english_vocabulary())

    return sorted(names, key=lambda n: -touched(n))


def _asked_for_but_absent(text: str, scores: dict[str, float]) -> str | None:
    """'Predict each professor's number of publications' on a table without them: the words after the verb name
    something, and nothing in the table answers to them. The phrase, or None. Such a request is asked about, never
    answered from the file's name ('Salaries.csv')."""
    if any(v >= 0.2 for v in scores.values()) or not re.search(rf"\b(?:{TARGET_VERBS})\b", text):
        return None
    phrase = target_phrase(text)
    content = [w for w in re.findall(r"[a-z]+", phrase) if w not in STOPWORDS and w not in _EMPTY_WORDS and len(w) > 2]
    return phrase.strip() if content else None


def _forecasts_its_own_history(text: str, column: ColumnProfile, candidates: list[str]) -> bool:
    """'Using the previous two years of monthly CPI, forecast the next quarter': in a forecast the one series named
    as what the model reads is also what it predicts; so is the only series a table holds ('spending on goods at
    constant prices ... a projection for the next two years')."""
    if column.kind != "numeric" or not re.search(r"\b(?:forecast\w*|project\w*|extrapolat\w*)\b", text):
        return False
    if candidates == [column.name]:
        return True
    # 'feeding the model the whole previous business day as history': any stated input window says the same
    return bool(re.search(r"\b(?:previous|past|last|prior|preceding)\s+(?:[\w.]+\s+){1,3}of\b", text)) \
        or requested_windows(text)[0] is not None


def _reason(e: _Evidence) -> str:
    return {
        "name": f"the instruction says {e.words!r}",
        "words": f"the instruction says {e.words!r}",
        "concept": f"the instruction says {e.words!r}, which means {e.column!r} here",
        "values": f"the instruction names its values ({e.words})",
        "transform": f"the instruction asks for {e.column!r} as a changed form of what {e.words!r} names",
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
    words = [w for w in re.findall(r"[^\W\d_]+", phrase) if w not in {"the", "a", "an", "which", "whether", "who", "if"}]
    return " ".join(words) or text


def _similarities(text: str, columns: list[ColumnProfile], semantic) -> dict[str, float]:
    phrase = target_phrase(text)
    descriptions = []
    for c in columns:
        values = _values(c)
        descriptions.append(name_parts(c.name).phrase + (f": {', '.join(values[:4])}" if values else ""))
    return {c.name: float(s) for c, s in zip(columns, semantic(phrase, descriptions))}


def _meaning(similarities: dict[str, float]) -> tuple[str, float] | None:
    order = sorted(similarities, key=lambda c: -similarities[c])
    best = similarities[order[0]]
    second = similarities[order[1]] if len(order) > 1 else 0.0
    if best >= 0.45 and best - second >= 0.12:
        return order[0], best
    return None


def held_labels(instruction: str, profile: DataProfile) -> str | None:
    """The column a clustering is to be scored against, when the instruction says so: 'compare the groups with the
    species', 'evaluate against the species labels'. A column named as what to cluster by is not one."""
    text = instruction.lower()
    toks = tokens(text)
    negated = _roles(text)["negated"]
    for column in eligible_columns(profile):
        if not classifiable(column):
            continue
        for e in column_mentions(column, text, toks):
            if e.score < 0.7 or _within(e.start, negated):
                continue
            before, after = text[max(0, e.start - 60):e.start], text[e.end:e.end + 12]
            before = re.split(r"[.;!?](?:\s|$)", before)[-1]  # the comparison is said in the mention's own sentence
            if re.search(r"\b(?:compare\w*|against|versus|vs\.?|evaluat\w*|scor\w*|check\w*|match\w*|agree\w*|"
                         r"correspond\w*|recover\w*|rand|line\w* up with|lines? up against|nmi|ari|purity|"
                         r"mutual information|between the (?:clusters|groups|segments) and)\b", before) or re.match(r"\s*(?:labels?|classes)\b", after):
                return column.name
            # 'the school the child attends must not be used to form the groups, but ... tell me how closely they
            # agree with it': the sentence's subject, compared with afterwards
            rest = re.split(r"[.;!?](?:\s|$)", text[e.end:])[0]
            if len(before) <= 40 and re.search(r"\b(?:agree\w*|compare\w*|match\w*|line\w* up|correspond\w*|overlap\w*|"
                                               r"fit\w*|align\w*)\s+(?:\w+\s+){0,2}?(?:with|against|to)\s+(?:it|that|this)\b",
                                               rest):
                return column.name
    # 'without looking at their vote, then measure agreement between the groups and the party they chose': the words
    # after the comparison, read on their own, name the one column
    for m in re.finditer(r"\bbetween the (?:clusters|groups|segments|camps) and (?:the |their |its )?([^.;,!?]{1,40})", text):
        said = m.group(1)
        named = {column.name for column in eligible_columns(profile) if classifiable(column)
                 and any(e.score >= 0.7 for e in column_mentions(column, said, tokens(said)))}
        if len(named) == 1:
            return named.pop()
    return None


def _said_as_target(name: str, text: str) -> bool:
    """The whole name said ('by customer_id'), and not where the words leave it out or give it as an input ('don't
    feed it the Name column'), nor as what a row is ('how well each student will do' over a Student number), nor as
    the owner of what is asked ('a county's residents')."""
    roles = _roles(text)
    spaced_name = re.sub(r"[_\W]+", " ", name.lower()).strip()
    spaced_text = re.sub(r"[_\W]", " ", text)  # same length: positions still line up with the roles
    return any(not _within(m.start(), roles["negated"]) and not _within(m.start(), roles["features"])
               and not re.search(r"\b(?:each|every|per|any|which|whose)\s+$", spaced_text[max(0, m.start() - 8):m.start()])
               and not re.match(r"'s?\b", text[m.end():m.end() + 2])  # ('a county's residents': their owner)
               for m in re.finditer(rf"(?<!\w){re.escape(spaced_name)}(?!\w)", spaced_text))


def named_but_unusable(instruction: str, profile: DataProfile) -> str | None:
    """Why the column the instruction names cannot be predicted (it is empty, holds one value, or identifies rows),
    or None when it names no such column: said instead of asking which column was meant."""
    text = instruction.lower()
    toks = tokens(text)
    constants = [c for c in profile.columns if c.kind == "constant"]
    ids = [c for c in profile.columns if c.kind == "identifier"]
    def spaced(words: str) -> str:
        return " " + re.sub(r"[_\W]+", " ", words.lower()).strip() + " "

    column = _explicit(text, constants + ids) or next(
        (c for c in constants if any(e.score >= 0.7 for e in column_mentions(c, text, toks))), None) or next(
        # an id only when its whole name is said ('by customer_id'): 'each student' is not 'student_id'
        (c for c in ids if _said_as_target(c.name, text)), None)
    if column is None:
        return None
    if column.kind == "identifier":
        return (f"{column.name!r} has a different value in every row ({column.n_unique} of {profile.n_rows}): it "
                "identifies rows, and a model cannot learn it")
    if column.missing >= profile.n_rows:
        return f"{column.name!r} is empty: none of its {profile.n_rows} rows has a value"
    value = column.examples[0] if column.examples else "?"
    return f"{column.name!r} has the same value ({value!r}) in every row: there is nothing to predict"
