"""The instruction brought to one canonical English form before any rule reads it.

People write requests in French, German or Spanish, as R formulas, as bullet lists, with thousands separators and
decimal commas. The rules downstream read one language and one layout; this module is the single place that maps the
others onto it, so that every rule (target, inputs, constraints, windows, relevance) gains each form at once instead of
learning it one phrasing at a time. What it rewrote is kept (`Canonical.rewrites`) and shown by the spec audit.

Translation is a lexicon of the request vocabulary (verbs of predicting, bounds, 'only', 'except', time units, metric
names), longest phrase first; words that are column names of the table are never translated.
"""

from __future__ import annotations

import json
from . import rx as re  # the re functions over a larger compile cache
import unicodedata
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from ..metrics import ALIASES
from .clauses import CLAUSE_VERBS, RATE_UNIT
from .words import COUNTED_IN_TIME, NUMBER_WORDS, english_vocabulary, name_parts, stem

# the words of French, German, Spanish and Italian the reader takes (function words that tell the languages apart, numbers
# in words, units, and the request vocabulary, phrase -> English, longest phrases tried first): data, not code
_KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"
_LANGUAGES = yaml.load((_KNOWLEDGE / "languages.yaml").read_text(encoding="utf-8"),
                       Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
_MARKERS: dict[str, set[str]] = {lang: set(words) for lang, words in _LANGUAGES["markers"].items()}
_NUMBERS: dict[str, dict[str, int]] = _LANGUAGES["numbers"]
_UNITS: dict[str, dict[str, str]] = _LANGUAGES["units"]
_LEXICON: dict[str, dict[str, str]] = _LANGUAGES["lexicon"]

_ENGLISH = {"the", "and", "with", "for", "only", "from", "predict", "of", "to", "a", "an", "is", "using", "use",
            "model", "without", "except", "which", "what", "next", "last", "at", "least", "most", "than", "be",
            "should", "must", "it", "on", "by", "in", "as", "we", "i", "my", "our", "please", "whether", "each"}

# the number words for one that are no article ('uno', 'eins')
_ONE_ITSELF = {"uno", "eins"}


class Canonical(BaseModel):
    """The instruction as the rules read it, and what was changed to get there."""

    text: str
    language: str = Field(description="en, fr, de, es or it")
    rewrites: list[str] = Field(default_factory=list, description="each change, in words")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-zà-öø-ÿ']+", text.lower())


def detect_language(text: str) -> str:
    """The language with the most of its own function words; English unless another clearly leads."""
    words = _words(text)
    counts = {lang: sum(w in markers for w in words) for lang, markers in _MARKERS.items()}
    english = sum(w in _ENGLISH for w in words)
    lang, best = max(counts.items(), key=lambda kv: kv[1])
    accents = len(re.findall(r"[éèêàùçâîôûäöüßñáíóú¿¡]", text.lower()))
    return lang if best >= 2 and best + min(accents, 2) > english * 1.5 else "en"


def _protect(text: str, columns: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """Column names written in the text are swapped for placeholders so no translation touches them."""
    kept: dict[str, str] = {}
    for i, name in enumerate(sorted(columns, key=len, reverse=True)):
        pattern = rf"(?<![\w.]){re.escape(name)}(?![\w])"
        if re.search(pattern, text):
            key = f"\x00{i}\x00"
            kept[key] = name
            text = re.sub(pattern, key, text)
    return text, kept


# German puts the verb last: 'student bitte weglassen' is 'without student', and so is a list of names, with their
# articles and parentheses ('die Platzierung weglassen', 'Teamname und Stadionname (team_name, ball_park) weglassen')
_GERMAN_ITEM = r"(?:(?:die|der|das|den|dem|des)\s+)?[\w.\x00-]+(?:\s*\([^()]*\))?"
_VERB_LAST = {"de": (rf"({_GERMAN_ITEM}(?:(?:\s*,\s*{_GERMAN_ITEM})*\s+(?:und|sowie|oder)\s+{_GERMAN_ITEM})?)\s+(?:bitte\s+)?"
                    r"(?:weglassen|auslassen|ausschließen|ignorieren|"
                    r"(?:nicht|auf keinen fall|keinesfalls|niemals)\s+(?:als\s+(?:eingabe|merkmal|input|feature)\s+)?"
                    r"(?:verwenden|benutzen|nutzen))\b", r"without \1")}
# 'nur Ausbildung, Erfahrung und Alter verwenden': 'using only' what stands between
_ONLY_VERB_LAST = {"de": (r"\b(?:nur|ausschließlich|lediglich)\s+([^.;!?]{1,120}?)\s+(?:verwenden|benutzen|nutzen|einsetzen|"
                                 r"berücksichtigen|heranziehen|hernehmen)\b",
                          r"using only \1")}


# 'à partir uniquement de', 'a partir únicamente de': an 'only' inside a compound preposition limits what follows it;
# moved before the preposition, the phrase reads whole ('only from')
_ONLY_INSIDE = {
    "fr": (r"\b(à partir|en fonction|à l'aide)\s+"
           r"(uniquement|seulement|exclusivement)\b", r"\2 \1"),
    "es": (r"\b(a partir|en función|con base|en base|a base)\s+(únicamente|solamente|sólo|solo|"
           r"exclusivamente)\b", r"\2 \1"),
}
_DATA_WORDS_PATH = _KNOWLEDGE / "data_words.json"
# German separable verbs: 'Sag das Gehalt vorher' is 'predict the salary'
_SEPARABLE = {"de": (r"\b(?:sag|sage|sagt|sagen|sagen sie)\b(.{1,80}?)\bvoraus\b|\b(?:sag|sage|sagt|sagen|sagen sie)\b(.{1,80}?)\bvorher\b",
                     lambda m: "predict" + (m.group(1) or m.group(2)))}


@lru_cache(maxsize=1)
def _describing_words() -> frozenset[str]:
    """The English data words that describe a thing ('annual', 'catholic'), from knowledge/data_words.json."""
    return frozenset(json.loads(_DATA_WORDS_PATH.read_text(encoding="utf-8"))["_describing"])


def _in_english_order(text: str, lang: str) -> str:
    """French and Spanish put a describing word after the thing it describes, English before it: 'lycée catholique'
    is read as 'catholique lycée', so that it translates to 'catholic high school', the order column names follow
    (cathhs). Only a known thing followed by a known describing word is turned round."""
    if lang not in ("fr", "es"):
        return text
    return _thing_then_describer(lang).sub(lambda m: f"{m.group(2)} {m.group(1)}", text)


@lru_cache(maxsize=4)
def _thing_then_describer(lang: str):
    """A known thing followed by a known describing word, in the language's data words (built once per language)."""
    words = _data_words()[lang]
    describing = _describing_words()
    things = sorted((w for w, e in words.items() if e not in describing), key=len, reverse=True)
    describers = sorted((w for w, e in words.items() if e in describing), key=len, reverse=True)
    return re.compile(r"(?<![\w\x00])(" + "|".join(re.escape(w) for w in things) + r")\s+("
                      + "|".join(re.escape(w) for w in describers) + r")(?![\w\x00])", re.IGNORECASE)


@lru_cache(maxsize=1)
def _data_words() -> dict[str, dict[str, str]]:
    """language -> {word as written there: the English word}, from knowledge/data_words.json."""
    entries = json.loads(_DATA_WORDS_PATH.read_text(encoding="utf-8"))
    out: dict[str, dict[str, str]] = {lang: {} for lang in _LEXICON}
    for english, forms in entries.items():
        if english.startswith("_"):
            continue
        for lang, words in forms.items():
            out[lang].update({w: english for w in words})
    return out


def _compound(word: str, parts: dict[str, str]) -> list[str] | None:
    """'verbraucherpreisindex' -> ['consumer', 'price', 'index']: a German compound as known parts, with the linking
    's' or 'es' between them."""
    if word in parts:
        return [parts[word]]
    for cut in range(len(word) - 3, 2, -1):
        head = word[:cut]
        if head not in parts:
            continue
        rest = word[cut:]
        for link in ("", "s", "es", "n", "en"):
            if rest.startswith(link) and len(rest) - len(link) >= 3:
                tail = _compound(rest[len(link):], parts)
                if tail:
                    return [parts[head], *tail]
    return None


def _compound_read(word: str, parts: dict[str, str]) -> str:
    """A compound in its English parts; a whole word is left to the phrase lexicon ('als Merkmale' -> 'as features')."""
    found = _compound(word.lower(), parts)
    return " ".join(found) if found and len(found) > 1 else word


def _translate(text: str, lang: str) -> str:
    if lang == "de":  # ', die sagt ...': a pronoun after a comma with a verb next opens a relative clause
        # (', die ethnische Zugehörigkeit' is an article and an adjective: German verbs here end in -t or are auxiliaries)
        text = re.sub(r",\s*(?:die|der|das|welche|welcher|welches)\s+(?=(?:[a-zäöüß]+t|sind|haben|werden|können|sollen|"
                      r"müssen|dürfen)\b)", ", which ", text)
    for word_order in (_VERB_LAST, _ONLY_VERB_LAST, _SEPARABLE, _ONLY_INSIDE):  # in this order
        if lang in word_order:
            text = re.sub(*word_order[lang], text, flags=re.IGNORECASE)
    words = _data_words()[lang]
    if lang == "de":  # compounds first, while their parts are still whole words
        text = re.sub(r"(?<![\w\x00])([a-zäöüß]{8,})(?![\w\x00])",
                      lambda m: _compound_read(m.group(1), words), text, flags=re.IGNORECASE)
    text = _in_english_order(text, lang)
    lexicon = {**words, **{k: v for k, v in _UNITS[lang].items()}, **_LEXICON[lang]}
    phrases = sorted(lexicon, key=len, reverse=True)
    # ("de l'âge", "d'études": an elided article or preposition ends at its apostrophe)
    pattern = re.compile(r"(?<![\w\x00])(" + "|".join(re.escape(p) for p in phrases) + r")(?:(?<=')|(?![\w\x00]))",
                         re.IGNORECASE)
    text = pattern.sub(lambda m: lexicon[m.group(1).lower()], text)
    numbers = _NUMBERS[lang]
    # 'al menos un 75 %', 'au moins une 80aine': an article before a number is no number itself
    articles = "|".join(w for w, n in numbers.items() if n == 1)
    text = re.sub(rf"(?<![\w\x00])(?:{articles})\s+(?=\d)", "", text, flags=re.IGNORECASE)
    # 'una escuela', 'un classifieur': an article before a word is 'a', as English says 'a minute', 'a school'
    text = re.sub(rf"(?<![\w\x00])(?:{'|'.join(w for w, n in numbers.items() if n == 1 and w not in _ONE_ITSELF)})"
                  rf"(?=\s+[^\W\d])", "a", text, flags=re.IGNORECASE)
    return re.sub(r"(?<![\w\x00])(" + "|".join(sorted(numbers, key=len, reverse=True)) + r")(?![\w\x00])",
                  lambda m: str(numbers[m.group(1).lower()]), text, flags=re.IGNORECASE)


def _numbers_as_written(text: str, lang: str) -> str:
    """'12.000' (de, es) and '12 000' (fr) as 12000, '4,5' as 4.5 outside English; '50,000' as 50000 everywhere."""
    text = re.sub(r"(?<![\d.,])(\d{1,3})((?:,\d{3})+)(?![\d,]|\.\d)", lambda m: m.group(1) + m.group(2).replace(",", ""),
                  text) if lang == "en" else text
    if lang != "en":
        text = re.sub(r"(?<![\d.,])(\d{1,3})((?:[. \u00a0\u202f]\d{3})+)(?![\d])",
                      lambda m: m.group(1) + re.sub(r"\D", "", m.group(2)), text)
        text = re.sub(r"(?<=\d),(?=\d{1,2}(?!\d))", ".", text)
    text = re.sub(r"\b(?:a\s+)?half\s+an?\s+(?=[a-z])", "0.5 ", text, flags=re.IGNORECASE) if lang == "en" else text
    # 'a quarter of a second', 'a tenth of a second', 'three quarters of an hour'
    counts = {"a": 1, "one": 1, "two": 2, "three": 3}
    fractions = {"quarter": 0.25, "third": 1 / 3, "fifth": 0.2, "tenth": 0.1, "hundredth": 0.01, "thousandth": 0.001}
    text = re.sub(r"\b(a|one|two|three)\s+(quarter|third|fifth|tenth|hundredth|thousandth)s?\s+of\s+an?\s+(?=[a-z])",
                  lambda m: f"{counts[m.group(1).lower()] * fractions[m.group(2).lower()]:.4g} ",
                  text, flags=re.IGNORECASE) if lang == "en" else text
    # '$15k', '12.5K', '2m rows': thousands and millions written with a letter
    text = re.sub(r"(?<![\w.])([$€£]?)(\d+(?:\.\d+)?)\s?([kK]|[mM](?=\s*(?:dollars|euros|pounds|rows|records|\$|€|£)))\b(?!\s*(?:m|ms|g|b|w|wh|hz)\b)",
                  lambda m: m.group(1) + f"{float(m.group(2)) * (1e3 if m.group(3).lower() == 'k' else 1e6):g}", text)
    text = re.sub(r"(\d)\s*(?:percent|per\s+cent)\b", r"\1%", text, flags=re.IGNORECASE)  # '55 percent right'
    return re.sub(r"(\d)\s+%", r"\1%", text)


# the words requests are made of, which a typo must not hide from the rules ('absolut', 'acuracy', 'regresion');
# column names are never corrected
_VOCABULARY = ("absolute", "accuracy", "precision", "recall", "squared", "percentage", "error", "average", "median",
               "predict", "forecast", "classify", "classification", "regression", "cluster", "clustering", "estimate",
               "without", "except", "excluding", "horizon", "lookback", "latency", "milliseconds", "seconds", "minutes",
               "megabytes", "training", "inference", "silhouette", "adjusted", "normalized", "mutual", "information",
               "logarithmic", "sensitivity", "specificity", "whether", "probability", "features", "columns", "using",
               "everything", "months", "weeks", "hours", "quarters", "years", "monthly", "weekly", "hourly", "quarterly",
               "yearly", "history")


def _spelling(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """A word one letter off a request word (two for words of ten letters or more), starting with the same letter, is
    that word."""
    from rapidfuzz.distance import Levenshtein

    names = {c.lower() for c in columns}
    notes = []

    def fix(m: re.Match) -> str:
        word = m.group(0)
        low = word.lower()
        if len(low) < 5 or low in names or low in _VOCABULARY or low.rstrip("s") in _VOCABULARY:
            return word
        for right in _VOCABULARY:
            # 'presicion' swaps two letters; 'trading' is not 'training'
            allowed = 2 if min(len(right), len(low)) >= 10 or sorted(low) == sorted(right) else 1
            if right[0] == low[0] and abs(len(right) - len(low)) <= allowed \
                    and Levenshtein.distance(low, right, score_cutoff=allowed) <= allowed \
                    and not right.startswith(low + "s") and not low.startswith(right):
                if low in english_vocabulary():  # 'trailing' is a word of its own, not 'training' misspelt
                    return word
                notes.append(f"{word!r} read as {right!r}")
                return right
        return word

    return re.sub(r"(?<![\w.])[A-Za-z]+(?![\w.])", fix, text), notes


def _learner_english(text: str) -> str:
    """'less of 10' is 'less than 10', 'more big than 0.55' 'more than 0.55', 'not more than' 'no more than': what
    people write for a comparison, in the form the bound rules read."""
    text = re.sub(r"\b(less|more|lower|higher|smaller|bigger|greater|fewer)\s+of\s+(?=[$€£]?\d)", r"\1 than ", text,
                  flags=re.IGNORECASE)
    text = re.sub(r"\bmore\s+(?:big|large|high|great|good)\s+than\b", "more than", text, flags=re.IGNORECASE)
    text = re.sub(r"\bmore\s+(?:small|low|little)\s+than\b", "less than", text, flags=re.IGNORECASE)
    # 'atleast 60%', 'lessthan 5': the words of a bound written together
    text = re.sub(r"\b(at)(least|most)\b|\b(less|more|fewer|lower|higher)(than)\b",
                  lambda m: " ".join(g for g in m.groups() if g), text, flags=re.IGNORECASE)
    text = re.sub(r"\bnot\s+(more|less|fewer)\s+than\b", r"no \1 than", text, flags=re.IGNORECASE)
    # 'all other columns may go in, only not wage' (German 'nur nicht'): 'only' there limits the exception, not the
    # inputs
    text = re.sub(r"\b(?:only|just)\s+not\b", "except", text, flags=re.IGNORECASE)
    # 'more then 94%', 'better then 0.8': 'then' for 'than' after a comparative
    text = re.sub(r"\b(less|more|fewer|lower|higher|smaller|bigger|larger|greater|better|worse|faster|slower|longer|"
                  r"shorter)\s+then\b(?=\s+(?:[$€£]?\d|an?\b|the\b|one\b|two\b|three\b|four\b|five\b|ten\b))",
                  r"\1 than", text, flags=re.IGNORECASE)
    # 'smaller as 7 dollar': 'as' for 'than', as German and Dutch speakers say it
    text = re.sub(r"\b(smaller|bigger|less|more|lower|higher|greater|fewer|better|worse)\s+as\s+(?=[$€£]?\d)", r"\1 than ",
                  text, flags=re.IGNORECASE)
    # '3 yrs of lags', '18 mos': a length of time said short
    short = {"yr": "years", "yrs": "years", "mo": "months", "mos": "months", "mth": "months", "mths": "months",
             "wk": "weeks", "wks": "weeks", "hr": "hours", "hrs": "hours", "qtr": "quarters", "qtrs": "quarters"}
    text = re.sub(r"\b(\d+)\s*(yrs?|mos?|mths?|wks?|hrs?|qtrs?)\b\.?", lambda m: f"{m.group(1)} {short[m.group(2).lower()]}",
                  text, flags=re.IGNORECASE)
    # 'budget 5m', 'time limit: 90s': a time budget said in a unit's letter ('5m' is not 5 metres or millions there)
    text = re.sub(r"\b((?:time\s+)?budget|time\s*limit|timeout|time\s*cap|max(?:imum)?\s+time|train(?:ing)?\s+time|"
                  r"run\s*time|runtime|wall\s*clock)(\s*[=:]?\s*(?:of\s+)?)(\d+(?:\.\d+)?)\s*(h|m|s)\b(?!\.\d)",
                  lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)} "
                            f"{ {'h': 'hours', 'm': 'minutes', 's': 'seconds'}[m.group(4).lower()]}",
                  text, flags=re.IGNORECASE)
    # 'classify urban off wage, educ, IQ', 'based off of age': the inputs after a colloquial 'off'
    text = re.sub(r"\b((?:predict|classify|regress|model|estimate|guess|forecast)\w*\s+[\w.-]+(?:\s*\([^)]*\))?)\s+"
                  r"off(?:\s+of)?\s+(?=\w)", r"\1 from ", text, flags=re.IGNORECASE)
    text = re.sub(r"\bbased\s+off(?:\s+of)?\b", "based on", text, flags=re.IGNORECASE)
    # 'please use for input only the ethnicity, ...': the role said before the list, as many learners put it
    text = re.sub(r"\b(use|take)\s+(?:for|as)\s+(?:the\s+)?(?:inputs?|features?|predictors?)\s+(only\b\s*)?",
                  lambda m: f"{m.group(1)} {m.group(2) or ''}", text, flags=re.IGNORECASE)
    number = r"(\d+(?:\.\d+)?(?:\s?%)?)"
    # 'a precision of 0.6 or better', '80% or more': the bound after its number
    # ('an RMSE of 0.47 or better': for an error, better is lower)
    error = r"\b(?:rmse|mae|mse|rmsle|mape|error|loss|deviation|off)\b[^.;,]{0,30}$"
    # 'the training must not exceed 5 minutes', 'shouldn't take more than 2 min': a ceiling said as what may not happen
    # ('the MAE must not be above 0.3', 'accuracy should not fall below 80%': a floor said the same way)
    said_number = (r"(?=(?:[$€£]\s*)?(?:\d|(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|"
                   r"twenty|thirty|forty|fifty|sixty|ninety|half)\s))")
    text = re.sub(r"\b(?:must|should|may|can|shall|will|does|do)\s*(?:not|n't)\s+(?:exceed|(?:go|be|rise|get)\s+(?:over|beyond|above)|"
                  r"(?:be|take|last|run|spend|use)\s+(?:more|longer|bigger|larger|higher)\s+than)\s+" + said_number,
                  "of at most ", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(?:must|should|may|can|shall|will|does|do)\s*(?:not|n't)\s+(?:(?:go|be|fall|drop|get|sink)\s+"
                  r"(?:below|under)|be\s+(?:less|lower|smaller|worse)\s+than)\s+" + said_number,
                  "of at least ", text, flags=re.IGNORECASE)
    # ('0.42 min/mile or better': a rate's unit may stand between)
    number = rf"(\d+(?:\.\d+)?(?:\s?%)?(?:\s*{RATE_UNIT})?)"
    text = re.sub(rf"{number}\s+or\s+better\b", lambda m: ("at most " if re.search(error, m.string[:m.start()], re.I)
                                                            else "at least ") + m.group(1), text, flags=re.IGNORECASE)
    text = re.sub(rf"{number}\s+or\s+(?:higher|more|above|greater|over)\b", r"at least \1", text, flags=re.IGNORECASE)
    text = re.sub(rf"{number}\s+or\s+(?:less|lower|fewer|below|under|smaller)\b", r"at most \1", text, flags=re.IGNORECASE)
    number = r"(\d+(?:\.\d+)?(?:\s?%)?)"
    # 'anything below 0.80 will not be signed off': what is refused states the floor; what is accepted states the
    # bound itself ('anything under 145 is acceptable')
    def refused(bound: str, accepted: str):
        return lambda m: (f"{accepted} {m.group(1)}" if re.search(_ACCEPTED, m.group(0), re.I) else f"{bound} {m.group(1)}")

    text = re.sub(rf"\b(?:anything|everything|nothing|a score|any score|any model)\s+(?:below|under|less than|lower than)\s+{number}"
                  r"(?:\s+(?:will|won't|is|isn't|cannot|can't|would|wouldn't|does|doesn't|must|should|gets?)\b[^.;!?]*)?",
                  refused("at least", "under"), text, flags=re.IGNORECASE)
    text = re.sub(rf"\b(?:anything|everything|a score|any score|any model)\s+(?:above|over|more than|higher than)\s+{number}"
                  r"(?:\s+(?:will|won't|is|isn't|cannot|can't|would|wouldn't|does|doesn't|must|should|gets?)\b[^.;!?]*)?",
                  refused("at most", "above"), text, flags=re.IGNORECASE)
    # 'how many grams off would it be on average', 'on average, how far off': the mean absolute error
    off = r"\bhow\s+(?:many\s+[\w/]+|much|far)\s+(?:(?:would|will|could|does|do|is|are)\s+(?:it|we|the model|they)\s+)?"
    text = re.sub(rf"{off}(?:be\s+)?off\b([^.?!;]{{0,40}}?)\s*\bon\s+average\b|\bon\s+average\b,?\s*{off}(?:be\s+)?off\b|"
                  rf"{off}(?:typically|usually|normally)\s+(?:be\s+)?off\b",
                  lambda m: f"what mean absolute error{m.group(1) or ''}", text, flags=re.IGNORECASE)
    # 'MAE<=1e-4': a number in scientific notation, written out (the bound readers take digits and one point)
    text = re.sub(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d{1,2})(?![\w.])",
                  lambda m: f"{float(m.group(0)):.12f}".rstrip("0").rstrip("."), text)
    # 'below half a cent (0.005)': a bound said in words and restated in the table's own figures in parentheses
    text = re.sub(r"\b(below|under|than|most|least|within|above|over|of)\s+\d+(?:\.\d+)?\s*(?:%|[a-z$€£]+)(?:\s+[a-z]+)?"
                  r"\s*\(\s*(\d+(?:\.\d+)?|\.\d+)\s*\)", lambda m: f"{m.group(1)} {m.group(2)}", text, flags=re.IGNORECASE)
    # 'on average we're off by no more than 150 mm', 'off by at most 3 points on average': a bound on the mean absolute
    # error (a metric named after it stays the one named)
    text = re.sub(r"\bon\s+average\b,?\s*(?:[\w']+\s+){0,3}?(?:off|out|wrong)\s+by\b(?![^.;!?]{0,60}\((?:the\s+)?[a-z]*\s*(?:error|rmse|mse|mape))",
                  "a mean absolute error of", text, flags=re.IGNORECASE)
    text = re.sub(r"\b(?:off|out|wrong)\s+by\s+((?:no more than|not more than|at most|less than|under|below|within|up to)\s+"
                  r"[\d.,]+(?:\s+[a-z%$]+){0,3}?)\s+on\s+average\b(?!\s*[(:,-]?\s*(?:as\s+)?(?:the\s+)?(?:[a-z]+\s+){0,3}?(?:error|rmse|mse|mae|mape)\b)",
                  lambda m: f"a mean absolute error of {m.group(1)}", text, flags=re.IGNORECASE)
    # 'AU$2.5m', '€3bn': money in millions or billions, said the short way
    text = re.sub(r"([$€£])\s*(\d+(?:\.\d+)?)\s*(m|mn|bn)\b", lambda m: f"{m.group(1)}{m.group(2)} "
                  f"{'billion' if m.group(3) == 'bn' else 'million'}", text)
    # 'six respondents in ten', '3 out of 4': a share
    words = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
    def share(m: re.Match) -> str:
        a, b = (int(NUMBER_WORDS.get(g.lower(), g)) if not g.isdigit() else int(g) for g in (m.group(1), m.group(2)))
        return f"{100 * a / b:g}%" if 0 < a <= b else m.group(0)
    text = re.sub(rf"\b(\d+|{words})\s+(?:[a-z]+\s+){{0,2}}?(?:in|out of)\s+(\d+|{words})\b(?!\s*(?:days|weeks|months|years|hours))",
                  share, text, flags=re.IGNORECASE)
    return _right_share(text)


# what a bound's own clause says of the models on its side: taken, not refused
_ACCEPTED = (r"\b(?:is|are|would be|will be|'s)\s+(?:(?!not\b|never\b|hardly\b)\w+\s+)?(?:acceptable|fine|ok|okay|good|great|enough|sufficient|"
             r"welcome|accepted|a pass|passing)\b|\b(?:passes|will do|works|would do)\b")
_SHARE_BOUND = (r"(?:(?:in|on|for)\s+)?(?P<bound>at least|more than|better than|over|above|at most|less than|under|"
                r"below)?\s*")


def _right_share(text: str) -> str:
    """'right at least 85 % of the time', 'classifies 9 out of 10 rows correctly' (a share by then): a share of right
    answers is an accuracy, and one said with no bound word is a floor."""
    def accuracy(m: re.Match) -> str:
        bound = {"better than": "more than"}.get((m.group("bound") or "").lower(), m.group("bound") or "at least")
        return f"accuracy {bound} {m.group('share')}"

    share = r"(?P<share>\d+(?:\.\d+)?\s?%)"
    text = re.sub(rf"\b(?:right|correct|accurate)\s+{_SHARE_BOUND}{share}\s+of\s+(?:the\s+)?(?:time|cases|rows|records|"
                  rf"predictions|\w+s)\b", accuracy, text, flags=re.IGNORECASE)
    # ('gets at least 30% of patients into the right dose group')
    text = re.sub(rf"(?<!\S){_SHARE_BOUND}{share}\s+of\s+(?:the\s+|its\s+|our\s+)?\w+\s+(?:in|into|to)\s+(?:the|their)\s+"
                  r"(?:right|correct)\b(?:\s+[\w-]+){0,2}?\s+(?:group|class|category|bucket|band|bin|label|arm)s?\b",
                  accuracy, text, flags=re.IGNORECASE)
    # ('at least 80% of flocks classified correctly')
    return re.sub(rf"(?<!\S){_SHARE_BOUND}{share}\s+(?:(?:of\s+)?(?:the\s+|its\s+|our\s+)?\w+\s+)?"
                  rf"(?:(?:classif\w*|predicted|labell?ed|sorted|identified|called|guessed|assigned)\s+)?(?:right|correctly|correct)\b",
                  accuracy, text, flags=re.IGNORECASE)


# 'y ~ a + b', 'lm(y ~ a + b, data = d)', 'fit <- glm(y ~ ., family = binomial)', and the shorthand 'y <- a + b'
# (an arrow is read as a formula only when a '+' follows it before any call: 'fit <- lm(...)' assigns)
# ('smf.ols("lwage ~ educ + exper", data=beauty)': Python's formula libraries take the formula as a string)
_FORMULA = re.compile(r"(?P<lead>^|[.;:]\s*|\b(?:fit|model|regress|run|estimate|try)\s+|"
                      r"(?:[A-Za-z_][\w.]*\s*(?:<-|=)\s*)?\b(?P<call>[A-Za-z_][\w.]*)\(\s*(?:formula\s*=\s*)?(?P<quote>[\"'])?)"
                      r"(?P<target>[A-Za-z_][\w.]*)\s*(?P<op>~|(?:<-|\u2190)(?=[^(\n;]*\+))\s*(?P<rhs>(?:\b\w+\([^()\n]*\)|[^,;\n()~#\"'])+?)\s*"
                      r"(?P<end>(?(call)(?(quote)[\"'])(?:\s*,\s*[\w.]+\s*=\s*[^,)\n]*)*\s*\)|,)|,|#|(?=[;\n]|$|\s+(?:and|then|with|"
                      r"using|report\w*|evaluat\w*|scor\w*|optimi[sz]\w*|measur\w*|metric|please|pls)\b|\s*\())")


_FUNCTION_CALL = re.compile(r"\b(?P<function>exp|log|ln|log1p|log2|log10|sqrt|abs|mean|sum|max|min)\((?P<argument>[^()]+)\)",
                            re.IGNORECASE)


def _function_calls(text: str) -> tuple[str, list[str]]:
    """'annearn = exp(lannearn)' as 'annearn = the exp of lannearn': a function's parentheses hold its argument, not
    a description of the words before them, and inside another parenthesis they would end it early."""
    notes = []

    def rewrite(m: re.Match) -> str:
        said = f"the {m.group('function')} of {m.group('argument').strip()}"
        notes.append(f"{m.group(0)!r} read as {said!r}")
        return said

    return _FUNCTION_CALL.sub(rewrite, text), notes


def _formula(text: str) -> tuple[str, list[str]]:
    """'y ~ a + b' as 'predict y using only a, b'; 'y ~ .' as 'predict y'; 'y ~ . - a - b' as 'predict y, do not use
    a, b'. The formula's own words go, the rest of the sentence stays."""
    notes = []

    def rewrite(m: re.Match) -> str:
        rhs = m.group("rhs").strip()
        target = m.group("target")
        if rhs.startswith("."):
            dropped = [t.strip() for t in re.findall(r"-\s*([\w.]+)", rhs)]
            out = f"predict {target}" + (f", do not use {', '.join(dropped)}" if dropped else "")
        else:
            # ('log(wage)': a formula's transform is the model's; the column it reads is wage)
            terms = [re.sub(r"^\w+\(\s*([\w.]+)\s*\)$", r"\1", t.strip()) for t in re.split(r"\+", rhs) if t.strip()]
            out = f"predict {target} using only {', '.join(terms)}"
        notes.append(f"formula {m.group(0).strip()!r} read as {out!r}")
        lead = m.group("lead")
        rest = m.string[m.end():].lstrip()
        return ("" if re.match(r"\s*\w", lead) else lead) + out + ("; " if m.group("end") or (rest and rest[0] not in ";\n") else "")

    return _FORMULA.sub(rewrite, text), notes


_QUOTED = r"(?:'[^'\n]*'|\"[^\"\n]*\")"
_NAME_LIST = rf"\[\s*{_QUOTED}(?:\s*,\s*{_QUOTED})*\s*,?\s*\]"
_SELECTION = rf"[A-Za-z_]\w*\s*\[\s*(?:{_NAME_LIST}|{_QUOTED}|[A-Za-z_]\w*)\s*\]|[A-Za-z_]\w*\.[A-Za-z_]\w*|[A-Za-z_]\w*"


def _python_code(text: str) -> tuple[str, list[str]]:
    """pandas and scikit-learn code ('feats = [...]', 'X = df[feats]', 'y = df["run"]', 'model.fit(X, y)',
    'X = df.drop(columns=[...])') read as the request it makes: 'predict run using only a, b, c'. The code stays
    after it (its metric calls, 'r2_score', say how to score)."""
    if not re.search(r"\.fit\(|^\s*y\s*=\s*\w+\s*\[", text, re.M):
        return text, []
    lists = {m.group(1): _names(m.group(2)) for m in re.finditer(rf"\b([A-Za-z_]\w*)\s*=\s*({_NAME_LIST})", text)}
    assigned: dict[str, list[str]] = {}
    dropped: list[str] = []

    def chosen(expr: str) -> list[str]:
        expr = expr.strip()
        if expr in assigned:
            return assigned[expr]
        m = re.fullmatch(r"[A-Za-z_]\w*\s*\[\s*(.+?)\s*\]", expr, re.S)
        if m:
            inner = m.group(1)
            return _names(inner) if inner.startswith(("[", "'", '"')) else lists.get(inner, [])
        m = re.fullmatch(r"[A-Za-z_]\w*\.([A-Za-z_]\w*)", expr)
        return [m.group(1)] if m and m.group(1) not in {"values", "index", "columns"} else []

    for m in re.finditer(rf"\b([A-Za-z_]\w*)\s*=\s*({_SELECTION})\s*(?:$|[;\n])", text, re.M):
        if chosen(m.group(2)):
            assigned[m.group(1)] = chosen(m.group(2))
    for m in re.finditer(rf"\b([A-Za-z_]\w*)\s*=\s*[A-Za-z_]\w*\.drop\(\s*(?:columns\s*=\s*)?({_NAME_LIST}|{_QUOTED})", text):
        dropped += _names(m.group(2))
    fit = re.search(rf"\.fit\(\s*({_SELECTION})\s*,\s*({_SELECTION})\s*[,)]", text)
    inputs, target = (chosen(fit.group(1)), chosen(fit.group(2))) if fit else (assigned.get("X", []), assigned.get("y", []))
    if len(target) != 1:
        return text, []
    dropped = [name for name in dropped if name != target[0]]
    request = f"predict {target[0]}" + (f" using only {', '.join(inputs)}" if inputs else "") + (
        f", do not use {', '.join(dropped)}" if dropped and not inputs else "")
    # of the rest of the code only how it scores counts: its frame's name ('bat') may read like a column's
    scoring = re.findall(r"\b(?:\w+_score|\w*mean_\w+_error|\w+_loss)\b|(?<=scoring=['\"])\w+", text)
    if scoring:
        request += f"; scored by {', '.join(dict.fromkeys(scoring))}"
    return request, [f"code {text.strip()!r} read as {request!r}"]


def _names(listed: str) -> list[str]:
    return [q[1:-1] for q in re.findall(_QUOTED, listed)]


_BULLET = re.compile(r"^\s*(?:[-*\u2022\u2023\u25e6]|\d{1,2}[.)])\s+")


def _json_objects(text: str) -> tuple[str, list[str]]:
    """A request written as a JSON object ('{"target": "value", "horizon": 12, "limits": {"max_train_seconds": 300}}')
    becomes the lines a YAML config would be ('target: value', 'horizon: 12', 'limits:', 'max_train_seconds: 300'),
    which every rule reads; text that is not a JSON object stays as it is."""
    decoder = json.JSONDecoder()
    notes: list[str] = []
    out, at = [], 0
    for m in re.finditer(r"\{", text):
        if m.start() < at:
            continue
        try:
            value, end = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        if not isinstance(value, dict) or len(value) < 2:
            continue
        out += [text[at:m.start()], "\n".join(_config_lines(value)), "\n"]
        at = end
        notes.append("a JSON object read as a config, one key a line")
    if not notes:
        return text, []
    out.append(text[at:])
    return "".join(out), notes


def _config_lines(value: dict, depth: int = 0) -> list[str]:
    lines = []
    for key, item in value.items():
        if isinstance(item, dict):
            lines += [f"{'  ' * depth}{key}:", *_config_lines(item, depth + 1)]
        elif isinstance(item, list):
            lines.append(f"{'  ' * depth}{key}: " + ", ".join(str(i) for i in item))
        else:
            lines.append(f"{'  ' * depth}{key}: " + ("none" if item is None else str(item).lower()
                                                      if isinstance(item, bool) else str(item)))
    return lines


# a key that carries the unit of its value: 'max_train_seconds: 300', 'time_budget_s=300', 'max_model_size_mb: 20'
_UNIT_IN_KEY = re.compile(r"(?<![\w.])((?:[A-Za-z]+_)+)(seconds|secs?|s|minutes|mins?|hours|hrs?|h|ms|mb|gb|kb)"
                          r"(\s*[:=]\s*)(\d+(?:\.\d+)?)(?![\w.])", re.IGNORECASE)


def _unit_in_key(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """'max_train_seconds: 300' -> 'max train: 300 seconds': the unit a config key names is the value's (a column's own
    name is left as it is)."""
    names = {c.lower() for c in columns}
    notes: list[str] = []

    def rewrite(m: re.Match) -> str:
        if (m.group(1) + m.group(2)).lower() in names:
            return m.group(0)
        key = m.group(1).replace("_", " ").strip()
        notes.append(f"{m.group(0)!r} read as {key}: {m.group(4)} {m.group(2)}")
        return f"{key}: {m.group(4)} {m.group(2)}"

    return _UNIT_IN_KEY.sub(rewrite, text), notes


def _bullets(text: str) -> tuple[str, list[str]]:
    """A request written as lines or bullets becomes one text of clauses separated by '; '."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        return text, []
    clauses: list[str] = []
    heading = False  # 'Inputs:' then one bullet per input: one list
    for line in lines:
        bullet = bool(_BULLET.match(line))
        item = _BULLET.sub("", line).rstrip(" ;")
        if heading and bullet and item:
            clauses[-1] += (" " if clauses[-1].endswith(":") else ", ") + item.rstrip(".,")
            continue
        heading = item.endswith(":")
        clauses.append(item)
    clauses = [c[:-1] if c.endswith(":") else c for c in clauses]
    return "; ".join(c for c in clauses if c), [f"{len(lines)} lines read as one request"]


# where a description of columns starts, reading back from its parenthesis: 'from the moisture readings (humid, dewp)'
_DESCRIPTION_START = (r"[,;:.!?]|\b(?:from|using|use|with|by|on|of|to|predict\w*|forecast\w*|classify|estimate\w*|"
                      r"cluster\w*|model|regress|except|without|but|not|nor|neither|no|have|has|whether|if|than|is|are|what|which|each|every|"
                      r"per|for|keep|leave|drop|exclude|ignore|omit|skip|remove|hold|put|set|feed|give|include)\b")
# words that start a description only where no other start is near: 'the value of a house (medv)' and 'the
# benefits per hour (hrbens)' are each one description, read back to 'the value' and 'the benefits'
_WEAK_STARTS = ("of", "per")
_WEAK_REACH_WORDS = 6
# 'the pieces it is summed from (a, b)': after a participle, 'from' says what a thing is made of, not what to use;
# 'predicted from (a, b)' still lists the inputs
_MADE_FROM = re.compile(r"(?:\b(?:it|they|that|which|each|this)\s+)?(?:\b(?:is|are|was|were|gets?|got|been|be)\s+)?"
                        r"\b(?!(?:predict|forecast|estimat|model|learn|train|fitt|classifi|explain|regress)\w*\s+from\s*$)"
                        r"(?:\w+ed|made|built|drawn|taken)(?:\s+(?:up|together|out|back))?\s+from\s*$", re.IGNORECASE)


def _description_cut(before: str) -> int:
    """Where the description that a parenthesis names starts in the text before it."""
    made_from = _MADE_FROM.search(before)
    if made_from:  # the clause belongs to the description: it starts before it
        before = before[:made_from.start()]
    strong, weak = 0, 0
    for b in re.finditer(_DESCRIPTION_START, before, flags=re.IGNORECASE):
        if b.group(0).lower() in _WEAK_STARTS:
            weak = b.end()
        else:
            strong, weak = b.end(), 0
    reach = re.sub(r"^\s*(?:and|or)\b", "", before[strong:weak])
    # ('except the year, month and day of death (yrdth, modth, dadth)': inside a list, an item ends at 'of')
    if weak and (len(reach.split()) > _WEAK_REACH_WORDS or re.search(r"\b(?:and|or)\b", reach)):
        return weak
    return strong


def _listed_description_cut(before: str, n_items: int, names: dict[str, str]) -> int | None:
    """Where a list that the parenthesis restates item by item starts: 'except the year, month and day of death
    (yrdth, modth, dadth)' is three descriptions for three names, read back past the commas and 'of' to 'except'."""
    if n_items < 2:
        return None
    words = [b for b in re.finditer(_DESCRIPTION_START, before, flags=re.IGNORECASE)
             if b.group(0) != "," and b.group(0).lower() not in _WEAK_STARTS]
    start = words[-1].end() if words else 0
    parts = _listed(re.sub(r"\b(?:the|a|an|its|their)\b", " ", before[start:]))
    if len(parts) == n_items and not any(p.lower() in names for p in parts):
        return start
    return None


# ('Don't feed it the other five fractions (food, fuel, ...)': a negation before the heading stays with its items)
_KEPT_WORDS = r"\b(?:only|just|alone|solely|all|every|not|no|except|out|aside|don't|dont|doesn't|never|nor|without)\b"


# plurals that stand for several columns at once ('the logged copies', 'the three readings')
_COLUMN_PLURALS = (r"copies|versions|columns|fields|variables|measures|measurements|features|inputs|ones|scores|logs|"
                   r"indicators|flags|dummies|readings|values|counts|rates|shares|figures|items|predictors|attributes")


def _listed(words: str) -> list[str]:
    """The items of a short list, without quotes: 'a, b and c' -> ['a', 'b', 'c']."""
    return [i.strip().strip("`'\"") for i in re.split(r",|;|\band\b|\bor\b|/|&|\+", words) if i.strip().strip("`'\"")]


def _metric_restated(text: str) -> tuple[str, list[str]]:
    """'una precisión (accuracy) de al menos 85 %', 'the precision (i.e. accuracy)': a metric's name with another
    metric's name in parentheses after it restates the one meant in the usual term (precisión, précision and
    Genauigkeit are said for accuracy as often as for precision)."""
    notes: list[str] = []
    names = "|".join(re.escape(a) for a in sorted(ALIASES, key=len, reverse=True))

    def rewrite(m: re.Match) -> str:
        said, meant = m.group(1), m.group(2)
        if ALIASES[said.lower()] == ALIASES[meant.lower()]:
            return m.group(0)
        notes.append(f"'{m.group(0)}' read as {meant}, the metric named in the parentheses")
        return meant

    text = re.sub(rf"(?<![\w-])({names})\s*\(\s*(?:i\.?\s?e\.?,?\s*|or\s+|=\s*|that is,?\s*)?({names})\s*\)", rewrite,
                  text, flags=re.IGNORECASE)
    return text, notes


_BOUND_AFTER_IT = re.compile(r"\b(it|that|this)(\s+(?:is|'s|comes?\s+in|stays?|falls?|lands?|(?:must|should|has to|"
                             r"needs to)\s+(?:be|stay|come in|fall))\s+(?:below|under|above|over|at least|at most|"
                             r"less than|more than|no more than|no less than|lower than|higher than|better than|"
                             r"[<>]=?)\s*\d)", re.IGNORECASE)


def _metric_pronoun(text: str) -> tuple[str, list[str]]:
    """'Report RMSE; accept if it is below 15.5': a bound said of 'it' right after a sentence that names one metric,
    and nothing else with a number between, is a bound on that metric."""
    notes: list[str] = []
    names = "|".join(re.escape(a) for a in sorted(ALIASES, key=len, reverse=True))

    def rewrite(m: re.Match) -> str:
        before = m.string[max(0, m.start() - 60):m.start()]
        named = re.findall(rf"(?<![\w-])({names})(?![\w-])", before, flags=re.IGNORECASE)
        if len({ALIASES[n.lower()] for n in named}) != 1 or re.search(r"(?<![\w.])\d", before):  # (not read4's 4)
            return m.group(0)
        if re.match(r"[\d.,]*\s*(?:[kmgt]i?b|bytes?|ms|milliseconds?|s|secs?|seconds?|minutes?|mins?|hours?|hrs?|h)\b",
                    m.string[m.end():], flags=re.IGNORECASE):
            return m.group(0)  # 'Report RMSE. The file: make sure it is under 50 MB': a size or a time is no metric's
        name = named[-1]
        notes.append(f"'{m.group(1)}' in '{m.group(0)}' read as {name}, the metric named just before")
        return name + m.group(2)

    return _BOUND_AFTER_IT.sub(rewrite, text), notes


# what may follow a name in its parentheses and says only its unit or kind: 'in millions of dollars', '0/1', 'percent'
_UNIT_GLOSS = (r"\s*(?:(?:measured|expressed|given|counted)\s+)?(?:in|into|per)\s+[\w$%]|\s*(?:0\s*/\s*1|yes\s*/\s*no|%|"
               r"percent|dummy|binary|a\s+dummy|a\s+flag|logs?|logged|the\s+target|target)\b")


def _named_in_parentheses(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """'the moisture readings (humid, dewp, precip)' -> 'humid, dewp, precip'; 'the median value of a house (medv)'
    -> 'medv': when every name in the parentheses is a column, they are what the words before them describe, and
    the description (which other rules would try to match to columns) goes. Words that limit stay ('the oxide
    contents only (Na, Mg)' -> 'Na, Mg only')."""
    names = {c.lower(): c for c in columns}
    notes = []

    def rewrite(m: re.Match) -> str:
        # ('(durat, and its log ldurat)': a name said with what it is of the one before is a name of the list)
        items = [re.sub(r"^(?:its|the|their)\s+(?:log(?:arithm)?|square|logged\s+value|logged\s+version)\s+(?:of\s+)?",
                        "", i, flags=re.IGNORECASE) for i in _listed(m.group(2))]
        # '(altitude category and lateral category, so AltCat and LatCat)': the names the words are restated as
        restated = re.search(r"(?:^|[,;:]|\s)\s*(?:so|i\.\s?e\.?|that is|namely|meaning|aka)\s*,?\s+(?P<names>[^()]+)$",
                             m.group(2), re.I)
        if restated and all(i.lower() in names for i in _listed(restated.group("names"))):
            items = _listed(restated.group("names"))
        # ('gross state product (gsp, in millions of dollars)': a name, then its unit or kind, names that one column)
        if len(items) > 1 and items[0].lower() in names and all(re.match(_UNIT_GLOSS, i, re.IGNORECASE) for i in items[1:]):
            items = items[:1]
        if items and not all(i.lower() in names for i in items):
            distributed = _distributed(m, items, columns)
            return distributed if distributed != m.group(0) else _headed_list(m, items, notes)
        before = m.group(1)
        # ('predict if the mother is working last year or not (worked)': the name is what the whole yes/no question
        # asks, and its 'or not' negates nothing)
        question = re.search(r"\b(?:if|whether)\b[^()]*\bor\s+not\s*$", before, flags=re.IGNORECASE)
        if question and len(items) == 1:
            notes.append(f"{before[question.start():].strip()!r} read as the column named after it: {items[0]}")
            return before[:question.start()] + names[items[0].lower()]
        cut = _listed_description_cut(before, len(items), names) or _description_cut(before)
        # ('(a, b) and the scores (c, d)', 'remove r2, as well as the respondent's identifier (id)': the joiner stays)
        joined = re.match(r"\s*[,;]?\s*(?:(?:and|or|plus|as well as|along with)\b|[+&])", before[cut:])
        cut = cut + joined.end() if joined else cut
        description = before[cut:]
        if not description.strip():  # 'from (state, sex, age)': the parentheses enumerate the inputs
            verb = re.search(r"\b(?:from|using|use|with|on|by|given|based on)\s*$", before, flags=re.IGNORECASE)
            return before + ("only " if verb else "") + ", ".join(names[i.lower()] for i in items)
        # ('drop losses, rank + the 4 winner flags (a, b, c, d)': '+' and '&' join as 'and' does)
        joined_inside = re.search(r"^(.*(?:\b(?:and|or)|[+&]))\s+(.+)$", description)
        parts = _listed(re.sub(r"\b(?:the|a|an|its|their)\b", " ", description))
        # ('the general price index and the freezing days (ppi, fdd)': one name for each part, none of them a name
        # itself, restates the whole list)
        # (but 'the reading pass rate and the logged copies (lpupils, lexpend)': a plural of columns holds them alone)
        each_restated = len(parts) == len(items) >= 2 and not any(p.lower() in names for p in parts) \
            and not re.search(rf"\b(?:{_COLUMN_PLURALS})\s*$", description, re.I)
        if joined_inside and joined_inside.group(2).strip().lower() not in names and not each_restated:
            # 'except state and the four charge columns (a, b, c, d)': the description is what follows 'and'
            cut += len(joined_inside.group(1))
            description = before[cut:]
        if description.strip().lower() in names:
            if [i.lower() for i in items] == [description.strip().lower()]:  # 'married (married)': said twice
                return before
            return m.group(0)
        kept = " ".join(re.findall(_KEPT_WORDS, description, flags=re.IGNORECASE))
        listed = ", ".join(names[i.lower()] for i in items)
        notes.append(f"{description.strip()!r} read as the columns named after it: {listed}")
        return before[:cut] + (f" {kept}" if kept else "") + " " + listed

    return re.sub(r"([^()]*?)\(([^()]+)\)", rewrite, text), notes


_NOT_A_GLOSS = re.compile(r"\d|[<>=≤≥%]|\b(?:only|just|alone|except|excluding|without|not|no|never|use|using|from|with|by|"
                          r"but|and not|drop|ignore|metric|score|target|label|input|inputs|feature|features|predict\w*|"
                          + "|".join(re.escape(a) for a in ALIASES) + r")\b", re.IGNORECASE)


def _glosses(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """'Predict tsales (annual store sales in dollars)': words in parentheses right after a column's name describe
    that column; read on their own they would name other columns ('sales'), so they go."""
    names = {c.lower() for c in columns}
    notes = []

    def rewrite(m: re.Match) -> str:
        name, inside = m.group(1), m.group(2)
        if name.lower() not in names or _NOT_A_GLOSS.search(inside) or len(inside.split()) > 8 \
                or all(i.strip().lower() in names for i in re.split(r",|/|&", inside)):
            return m.group(0)
        notes.append(f"({inside.strip()}) read as a description of {name}")
        return name

    return re.sub(r"(?<![\w.])([A-Za-z_][\w.]*)\s*\(([^()]+)\)", rewrite, text), notes


def _asides_in_a_phrase(text: str) -> tuple[str, list[str]]:
    """'their (logged) hourly wage' -> 'their logged hourly wage': a word or two in parentheses in the middle of a noun
    phrase qualify it; read as a parenthesis they would end a list there."""
    notes = []

    def rewrite(m: re.Match) -> str:
        notes.append(f"'({m.group(2)})' read as part of its phrase")
        return f"{m.group(1)} {m.group(2)} "

    return re.sub(r"\b(the|their|his|her|its|our|a|an)\s+\(([a-z]+(?:[ -][a-z]+)?)\)\s+(?=[a-z])", rewrite, text,
                  flags=re.IGNORECASE), notes


def _measure_of_each(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """'the shelf prices of Yoplait, Dannon, Hiland and Weight Watchers' -> 'price.yoplait, price.dannon, price.hiland
    and price.weight': one measure said of several things, where the measure and each thing's first word are the two
    parts of one column's name (price.dannon beside feat.dannon). Left as said unless every thing names one column."""
    by_parts: dict[tuple[str, str], list[str]] = {}
    for name in columns:
        words = name_parts(name).words
        if len(words) == 2:
            for a, b in (words, words[::-1]):
                by_parts.setdefault((stem(a.lower()), b.lower()), []).append(name)
    if not by_parts:
        return text, []
    notes = []

    def rewrite(m: re.Match) -> str:
        measure = stem(m.group("measure").lower())
        items = [i.strip() for i in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", m.group("items")) if i.strip()]
        found = []
        for item in items:
            first = item.split()[0].lower()
            named = by_parts.get((measure, first), [])
            if len(named) != 1:
                return m.group(0)
            found.append(named[0])
        said = ", ".join(found[:-1]) + f" and {found[-1]}"
        notes.append(f"{m.group(0).strip()!r} read as {said!r}")
        return said

    item = r"[A-Za-z][\w.-]*(?:\s+[A-Z][\w.-]*)?"
    return re.sub(rf"\b(?:the\s+|their\s+|its\s+)?(?:[a-z]+\s+)?(?P<measure>[a-z]+s)\s+of\s+"
                  rf"(?P<items>{item}(?:\s*,\s*{item})*\s*,?\s+(?:and|or)\s+{item})", rewrite, text), notes


def _owners_in_parentheses(text: str) -> tuple[str, list[str]]:
    """'the two parental-schooling fields (mother's and father's)' -> 'mother's schooling and father's schooling': a
    measure said once, then whose, in parentheses, one column each."""
    notes = []

    def rewrite(m: re.Match) -> str:
        owners = [o.strip() for o in re.split(r",|\band\b|&|\bor\b", m.group("owners")) if o.strip()]
        if len(owners) < 2 or not all(o.endswith("'s") for o in owners):
            return m.group(0)
        noun = m.group("noun").split("-")[-1]
        said = " and ".join(f"{o} {noun}" for o in owners)
        notes.append(f"{m.group(0).strip()!r} read as {said!r}")
        return said

    return re.sub(r"\b(?:the\s+)?(?:(?:\d+|two|three|both)\s+)?(?P<noun>[\w-]+)(?:\s+(?:fields|columns|variables|measures|"
                  r"ones))?\s*\((?P<owners>[^()]{3,80})\)", rewrite, text, flags=re.IGNORECASE), notes


def _headed_list(m: re.Match, items: list[str], notes: list[str]) -> str:
    """'using only the three raw distances in feet (to the incinerator, to the business district and to the
    interstate)' -> 'using only distance to the incinerator, distance to the business district, distance to the
    interstate'; 'the categories (altitude category and lateral category)' -> 'altitude category, lateral category':
    a plural heading with two or more items in parentheses is those items, each a kind of the heading."""
    before = m.group(1)
    # only where the heading limits or counts ('only the categories', 'the three raw distances'): elsewhere the
    # parentheses may give examples or values ('clinical measurements (glucose, ...)', 'bookings (transient / group)')
    head = re.search(rf"\b(?:only|just|solely|exclusively|{'|'.join(NUMBER_WORDS)}|\d+)\s+(?:[a-z-]+\s+){{0,3}}?"
                     r"(?P<noun>[a-z]{3,}s)(?:\s+(?:in|of)\s+[a-z]+)?\s*$", before, re.I)
    # ("don't feed it the other spending fractions (food, fuel, ...)": what is said not to be used is those items)
    head = head or re.search(r"\b(?:don't|dont|do not|never|not|without|exclude|excluding|leave out|drop|ignore)\s+"
                             r"(?:[a-z-]+\s+){0,5}?(?P<noun>[a-z]{3,}s)\s*$", before, re.I)
    if head is None or len(items) < 2 or head.group("noun").lower() in _NOT_PLURAL \
            or any(_NOT_A_GLOSS.search(i) and not re.match(_PLACE_WORD, i) for i in items):
        return m.group(0)
    noun = head.group("noun")
    head_start = head.start("noun")
    singular = noun[:-3] + "y" if noun.endswith("ies") else noun[:-2] if re.search(r"(?:ss|x|ch|sh)es$", noun) else noun[:-1]
    said = ", ".join(f"{singular} {i}" if re.match(_PLACE_WORD, i) else i for i in items)
    cut = _description_cut(before[:head_start])
    kept = " ".join(re.findall(_KEPT_WORDS, before[cut:head_start], flags=re.IGNORECASE))
    notes.append(f"{before[cut:].strip()} ({m.group(2).strip()}) read as its items: {said}")
    return before[:cut] + (f" {kept}" if kept else "") + " " + said + " "


# an item that says where or of what ('to the interstate'): a kind of the heading before it
_PLACE_WORD = r"(?:to|from|of|in|at|for|with|on)\b"
_NOT_PLURAL = {"this", "its", "has", "was", "plus", "does", "yes", "thus", "less", "unless", "always", "perhaps", "whereas",
               # a window's steps: 'the next 6 quarters (a year and a half)' says how long, not which columns
               "seconds", "minutes", "hours", "days", "weeks", "months", "quarters", "years", "steps", "periods",
               "observations", "points", "lags"}


def _distributed(m: re.Match, items: list[str], columns: tuple[str, ...]) -> str:
    """'the bill (length and depth)' -> 'bill_length_mm and bill_depth_mm': the word before the parentheses with each
    word inside names a column (its name holds both, in that order)."""
    head = re.search(r"([A-Za-z]+)\s*$", m.group(1))
    if head is None:
        return m.group(0)
    squashed = {_squash(c): c for c in columns}
    found = []
    for item in items:
        key = _squash(head.group(1) + item)
        hits = [c for s, c in squashed.items() if s.startswith(key)]
        if len(hits) != 1:
            return m.group(0)
        found.append(hits[0])
    return m.group(1)[:head.start()] + " and ".join(found)


def _ranges(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """'V1 to V9', 'x1-x5', 'V1 bis V9': numbered columns written as a range, listed one by one; 'Buick..Saturn',
    'game through bat_avg': any two columns' names joined by dots or 'through', the columns between them."""
    notes = []

    def expand(m: re.Match) -> str:
        first, last = m.group(1), m.group(3)
        try:
            a, b = columns.index(first), columns.index(last)
        except ValueError:
            return m.group(0)
        listed = list(columns[a:b + 1])
        if a >= b or len(listed) > 200:
            return m.group(0)
        notes.append(f"{m.group(0)!r} read as {len(listed)} columns: {', '.join(listed)}")
        return ", ".join(listed)

    text = re.sub(r"(?<![\w.])([A-Za-z_.]+\d+)\s*(to|through|thru|until|bis|à|a|hasta|-|–|\.\.)\s*([A-Za-z_.]+\d+)(?![\w])",
                  expand, text)
    # 'the make flags (Buick..Saturn)', 'from game through bat_avg': any two column names, in the table's order
    return re.sub(r"(?<![\w.])([A-Za-z_][\w.]*?)\s*(\.\.\.?|…|\bthrough\b|\bthru\b)\s*([A-Za-z_][\w]*)(?![\w])",
                  expand, text), notes


_RESTATES = r",?\s*\b(?:i\.\s?e\.?|that is|namely|in other words|specifically)\s*,?\s*"
_EVERY_COLUMN = r"(?:(?:every|all|each|the)\s+(?:\w+\s+){0,2}?(?:columns?|variables?|fields?|stats?)\s+)?(?:from\s+)?"


def _limited_heading(text: str) -> tuple[str, list[str]]:
    """'Inputs (nothing else): a, b', 'Features only: a, b' -> 'Inputs: a, b': a heading of inputs limits to its list
    as it stands; the limiting words beside it would otherwise be read as an item."""
    notes = []

    def bare(m: re.Match) -> str:
        notes.append(f"{m.group(0)!r} read as {m.group(1) + ':'!r}")
        return m.group(1) + ":"

    # ('Inputs, and only these:', 'Features - these only:' the same, set off by a comma or a dash)
    text = re.sub(r"\b(inputs?|features?|predictors?)\s*(?:\(\s*(?:and\s+)?(?:nothing else|nothing more|only(?: these)?|"
                  r"no others?|exclusively|just these)\s*\)|only|alone|(?:,|\s-|\s\u2013|\s\u2014)\s*(?:and\s+)?"
                  r"(?:only|just)\s+(?:these|those|the following)|(?:,|\s-|\s\u2013|\s\u2014)\s*(?:these|those)\s+only|"
                  r"(?:,|\s-|\s\u2013|\s\u2014)\s*(?:and\s+)?nothing else)\s*:", bare, text, flags=re.I)

    def headed(m: re.Match) -> str:
        notes.append(f"{m.group(1).strip()!r} read as 'Inputs:'")
        return m.group(0)[:m.start(1) - m.start(0)] + "Inputs:"
    # '... just from family background. so only: the ability score, ...': a sentence that opens with 'only:' lists
    # the inputs, after a request that said what to predict
    return re.sub(r"(?:^|[.;!?]\s+)((?:so\s+|and\s+|but\s+)?(?:only|just)(?:\s+these)?\s*:)", headed, text,
                  flags=re.I), notes


def _restated(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """'by their stat lines, i.e. game, at_bat, ...': words restated as a list of the columns' names are those
    columns; read on their own they would name none, so they go."""
    names = {c.lower() for c in columns}
    notes = []
    for m in reversed(list(re.finditer(_RESTATES, text, re.I))):
        head = re.match(_EVERY_COLUMN, text[m.end():], re.I)
        listed = text[m.end() + head.end():]
        items = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s+or\s+", re.split(r"[.;:()]", listed, maxsplit=1)[0])
        named = 0
        for item in items:
            if item.strip().lower() not in names:
                break
            named += 1
        if named < 2:
            continue
        opener = list(re.finditer(r"\b(?:by|on|from|with|using|use|of|only)\s+", text[max(0, m.start() - 50):m.start()]))
        if not opener:
            continue
        start = max(0, m.start() - 50) + opener[-1].end()
        notes.append(f"{text[start:m.start()].strip()!r} read as the columns it is restated as")
        text = text[:start] + text[m.end() + head.end():]
    return text, notes


# where an item of a list starts and ends, and who an item's clause is about
_ITEM_LEAD = r"(?P<lead>,\s*|\band\s+|\bor\s+|:\s*|\b(?:take|use|using|from|with|only|on)\s+)"
_ITEM_END = r"(?=\s*(?:[,.;:!?)]|\band\b|\bor\b|$))"
_WHETHER_SUBJECT = r"(?:whether|if)\s+(?:he|she|they|it|the\s+\w+|one)"
_WHO = r"(?:he|she|they|it|i|we|you|(?:the|each|every|a|an|his|her|their)\s+[\w-]+)"


def _squash(words: str) -> str:
    """'After 2004', 'after_2004' -> 'after2004': a name or words as letters and digits only."""
    return re.sub(r"[^a-z0-9]", "", words.lower())


@lru_cache(maxsize=64)
def _squashed(columns: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_squash(c) for c in columns)


def _names_a_column(words: str, columns: tuple[str, ...]) -> bool:
    said = _squash(words)
    squashed = _squashed(columns)
    return len(said) >= 3 and any(n and (n == said or (len(n) >= 4 and said.startswith(n)) or
                                         (len(said) >= 5 and n.startswith(said))) for n in squashed)


def _noted(notes: list[str], m: re.Match, read: str) -> str:
    notes.append(f"{m.group(0).strip(' ,:')!r} read as {read.removeprefix(m.group('lead')).strip()!r}")
    return read


def _whether_items(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """'take the age, if he is self-employed, whether they're married' -> 'take the age, self-employed, married': an
    item of a list said as a yes/no question is the column it asks about; only where its words name a column, so a
    real condition (', if they are late') stays."""
    notes = []

    def yes_no(m: re.Match) -> str:
        # between two commas of a list ('..., whether they're a woman, whether they're married, ...') it is an item
        # whatever it names; elsewhere only when it names a column
        # (or the last item, after 'and', of a list with commas: '..., his age and if he is male or female')
        lead, before = m.group("lead"), m.string[max(0, m.start() - 60):m.start()]
        in_list = (lead.startswith(",") and re.match(r"\s*(?:,|and\s+(?:whether|if)\b)", m.string[m.end():])) or (
            re.match(r"and\b", lead) and "," in re.split(r"[.;:!?]", before)[-1]) or (
            # '..., the distance to it, whether the house is near the incinerator and the year': the last but one
            lead.startswith(",") and re.match(r"\s*and\b", m.string[m.end():]) and "," in re.split(r"[.;:!?]", before)[-1])
        if not (in_list or _names_a_column(m.group("what"), columns)):
            return m.group(0)
        # ('after 2004' is the column After2004)
        said = next((c for c, n in zip(columns, _squashed(columns)) if n == _squash(m.group("what"))), m.group("what"))
        notes.append(f"{m.group(0).strip(' ,:')!r} read as {said!r}")
        return m.group("lead") + said

    lead, end, subject = _ITEM_LEAD, _ITEM_END, _WHETHER_SUBJECT
    text = re.sub(rf"{lead}{subject}\s*(?:'s|'re|\s+(?:is|are|was|were|has|have|had))\s+(?:(?:an?|in\s+an?|in\s+the)\s+)?"
                  # 'whether the house is near the incinerator': near what, too
                  # ('whether the run was after 2004': after a year, where a column says so)
                  rf"(?P<what>(?:near|close to|next to|far from)\s+(?:the\s+)?[\w-]+|(?:before|after|since|until)\s+(?:19|20)\d\d"
                  rf"|[\w-]+(?:\s+or\s+(?!not\b)[\w-]+)?)"
                  rf"(?:\s+or\s+not)?"
                  # 'whether the person is enrolled in the managed-care demonstration': what it is enrolled in says no
                  # more than the word before it
                  rf"(?:\s+(?:in|into|at|on|for|with)\s+(?:the\s+|an?\s+|a\s+)?[\w-]+(?:\s+[\w-]+)?)?{end}", yes_no, text,
                  flags=re.I)
    # 'its sex and which of the two diets it was on': the one it was on is the item
    # ('which brand of shoe he had on': the brand of shoe)
    text = re.sub(rf"{lead}which\s+(?:of\s+the\s+(?:\w+\s+)?)?(?P<what>[a-z]+?(?:\s+of\s+[a-z]+?)?)(?:e?s)?\s+"
                  rf"(?:it|he|she|they)\s+(?:was|were|is|are|had|has|got|received|wore|used|drove|took)"
                  rf"(?:\s+(?:on|in|given|fed))?{end}", yes_no, text, flags=re.I)
    # 'whether they work in the service sector': where they work is the item
    text = re.sub(rf"{lead}{subject}\s+(?:work|works|worked|live|lives|lived)\s+(?:in|at|for)\s+(?:the\s+|an?\s+)?"
                  # ('whether they live in an urban or a rural area': the first of the two names the column)
                  rf"(?P<what>[\w-]+)(?:\s+or\s+(?:in\s+)?(?:the\s+|an?\s+)?[\w-]+)?"
                  rf"(?:\s+(?:sector|industry|trade|business|area|region|place|setting))?{end}", yes_no, text, flags=re.I)
    # 'if mother did work outside', 'if mother is 25 or older' (a learner's bare noun): whose it is names the column
    # with what ('mother work' for momWork, 'mother aged 25 upwards' for mom25p)
    bare_subject = r"(?:whether|if)\s+(?:the\s+)?(?P<subject>(?!(?:he|she|they|it|one|we|you|i)\b)[a-z]+)"
    text = re.sub(rf"{lead}{bare_subject}\s+(?:is|are|was|were)\s+(?P<age>\d+)\s*(?:\+|plus|or\s+(?:older|over|more|above))"
                  rf"(?:\s+years?(?:\s+old)?)?{end}",
                  lambda m: _noted(notes, m, f"{m.group('lead')}{m.group('subject')} aged {m.group('age')} upwards"), text, flags=re.I)
    text = re.sub(rf"{lead}{bare_subject}\s+(?:did|does|do)\s+(?P<what>[a-z]+)"
                  rf"(?:\s+(?:outside|out|away|abroad|overseas|full-time|part-time))?{end}",
                  lambda m: _noted(notes, m, f"{m.group('lead')}{m.group('subject')} {m.group('what')}"), text, flags=re.I)
    # the verb last, as German puts it ('ob sie im Süden wohnt': 'whether they in the south lives')
    text = re.sub(rf"{lead}(?:whether|if)\s+(?:(?:he|she|they|it|the\s+\w+|one|(?:his|her|their|its)\s+\w+)\s+)?"
                  rf"(?:(?:into|in|at|for|by)\s+(?:the\s+|an?\s+)?)?(?P<what>[\w-]+(?:\s+[\w-]+)?(?:\s*\([^()]{{1,30}}\))?)\s+"
                  rf"(?:is|are|works|lives|has){end}", yes_no, text, flags=re.I)
    return text, notes


# 'how important religion is', 'how old the house is': the measure the adjective asks about
_ADJECTIVE_MEASURES = {"big": "size", "large": "size", "important": "importance", "old": "age", "tall": "height",
                       "high": "height", "heavy": "weight", "far": "distance", "fast": "speed", "wide": "width",
                       "deep": "depth", "expensive": "price", "satisfied": "satisfaction", "happy": "happiness",
                       "religious": "religiosity", "strong": "strength", "hot": "temperature", "warm": "temperature"}
_OWNER = r"(?:(?:the|his|her|their|its|a|an|this|that|each)\s+)?"


def _size_items(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """'..., how big is his family, ...' -> '..., family size, ...'; 'how important religion is in their life' ->
    'the importance of religion in their life': a measure asked as 'how <adjective>' is that measure, where it is an
    item of a list, names a column, or is what to predict."""
    notes = []
    adjectives = "|".join(_ADJECTIVE_MEASURES)

    def measure(m: re.Match) -> str:
        lead = m.group("lead")
        in_list = lead.startswith(",") and re.match(r"\s*(?:,|and\b)", m.string[m.end():])
        asked = re.match(CLAUSE_VERBS, lead.strip(), re.I)
        what, noun = m.group("what"), _ADJECTIVE_MEASURES[m.group("adj").lower()]
        bare = re.sub(rf"^{_OWNER}", "", what, flags=re.I)
        if not (in_list or asked or re.match(r"(?:inputs?|features?)\s*:", lead, re.I)
                or _names_a_column(bare, columns) or _names_a_column(noun, columns)):
            return m.group(0)
        said = f"{bare} size" if noun == "size" else f"the {noun} of {what}{m.group('where') or ''}"
        notes.append(f"{m.group(0)[len(lead):].strip(' ,:')!r} read as {said!r}")
        return lead + said

    lead = rf"(?P<lead>,\s*|\band\s+|\bor\s+|(?:inputs?|features?)?\s*:\s*|\b(?:take|use|using|from|with|only|on|{CLAUSE_VERBS})\s+)"
    where = r"(?P<where>\s+(?:in|to|for|from|at|on)\s+(?:(?:the|his|her|their|its|a|an|my|our)\s+)?[\w-]+)?"
    # 'how big is his family' (asked), and 'how important religion is in their life' (said)
    text = re.sub(rf"{lead}how\s+(?P<adj>{adjectives})\s+(?:is|are|was|were)\s+(?P<what>{_OWNER}[\w-]+){where}{_ITEM_END}",
                  measure, text, flags=re.I)
    # ('how old the head of household is': whose it is may take a few words)
    text = re.sub(rf"{lead}how\s+(?P<adj>{adjectives})\s+(?:away\s+)?(?P<what>{_OWNER}[\w-]+(?:\s+[\w-]+){{0,3}}?)\s+"
                  rf"(?:is|are|was|were|gets?|got)\b{where}{_ITEM_END}", measure, text, flags=re.I)
    return text, notes


def _quantity_items(text: str) -> tuple[str, list[str]]:
    """'how many years he has been in the labour force', 'the number of days the person was observed', 'how much the
    school spends per student': an item said as a question of quantity is the quantity it asks for."""
    notes = []
    lead, end, who = _ITEM_LEAD, _ITEM_END, _WHO

    def how_many(m: re.Match) -> str:
        # 'how many years he has been in the labour force' -> 'years in the labour force'; 'how many kids are living
        # in the house' -> 'number of kids in the house'; 'how long he stayed with his employer' -> 'time with his
        # employer': the quantity and where it is counted, without who counts it
        where = re.search(r"\b(?:in|with|at|on|for|of)\s+(?:(?:the|his|her|their|its|a|an)\s+)?[\w' -]+$", m.group("clause"))
        what = m.group("what") or "time"
        said = (what if what.split()[0] in COUNTED_IN_TIME or what == "time" else f"number of {what}") \
            + (f" {where.group(0)}" if where else "")
        notes.append(f"{m.group(0).strip(' ,:')!r} read as {said!r}")
        return m.group("lead") + said

    text = re.sub(rf"{lead}how\s+(?:many\s+(?P<what>[\w-]+(?:\s+of(?:\s+[\w-]+){{1,2}}?)?)|long)\s+"
                  rf"(?P<clause>(?:{who}\s+[\w' -]+?|(?:are|is|were|was)\s+[\w' -]+?)){end}", how_many, text,
                  flags=re.I)

    def counted_while(m: re.Match) -> str:
        said = f"{m.group('what')} {m.group('verb')}"
        notes.append(f"{m.group(0).strip(' ,:')!r} read as {said!r}")
        return m.group("lead") + said

    # 'the number of days the person was observed' -> 'days observed': what is counted, and what happened in it
    text = re.sub(rf"(?P<lead>,\s*|\band\s+|\bor\s+|:\s*|\b(?:take|use|using|from|with|only|on|except|excluding|without|"
                  rf"but|not|out)\s+)(?:the\s+)?number\s+of\s+(?P<what>[\w-]+)\s+(?:that\s+)?(?:{who})\s+(?:was|were|has been|"
                  rf"had been|is|are)\s+(?P<verb>[a-z]+ed)\b", counted_while, text, flags=re.I)

    def how_much(m: re.Match) -> str:
        notes.append(f"{m.group(0).strip(' ,:')!r} read as {m.group('verb')!r}")
        return m.group("lead") + m.group("verb")

    # 'how much the school spends per student' -> 'spends per student': the amount is what the verb names
    amount_ends = r"(?=\s*(?:[,.;:!?)]|\band\b|\bor\b|$)|\s+(?:per|a|an|each|on|for|in)\b)"
    text = re.sub(rf"{lead}how\s+much\s+(?:{who})\s+(?P<verb>[a-z]+s|spent|earned|paid|owed|charged|made){amount_ends}",
                  how_much, text, flags=re.I)
    return text, notes


_MONEY = r"(?:dollars?|euros?|pounds?|prices|terms|\$|€|£)"
# amounts in the money of one base year, or with inflation taken out, are what tables call 'real' (rprice, realgdp)
_REAL_AMOUNT = (
    (re.compile(rf"\b(?!(?:once|it|that|this|them|one|was|is|are|and|or|then|also|both|all|each)\b)([a-z]+)"
                # ('the price of sales expressed in dollars of 1978', as Spanish and French put it: the price is)
                rf"((?:\s+of\s+[a-z]+)?)\s+(?:expressed\s+|measured\s+|stated\s+|converted\s+)?(?:in|into|to)\s+"
                rf"(?:constant\s+)?"
                rf"(?:(?:19|20)\d\d\s+{_MONEY}|{_MONEY}\s+of\s+(?:19|20)\d\d|constant\s+{_MONEY}|real\s+terms)", re.I),
     r"real \1\2"),
    (re.compile(r"\b(?:inflation[- ]adjusted|deflated|constant[- ](?:dollar|euro|price))\s+([a-z]+)", re.I), r"real \1"),
)
# 'the log price, the price in 1978 dollars and the log of that': 'that' is the item before
_OF_THE_ONE_BEFORE = re.compile(r"(?P<before>[,:]\s*(?:the\s+)?(?P<item>[^,:;.()]{3,40}?))\s*(?:,\s*|\s+)(?P<joint>and\s+|or\s+)?"
                                r"the\s+(?P<what>log(?:arithm)?|square|logged value|inverse)\s+of\s+(?:that|this|it|the latter)"
                                r"(?=\s*(?:[,.;:!?)]|\band\b|\bor\b|$))",
                                re.I)


def _amounts_and_references(text: str) -> tuple[str, list[str]]:
    """'the price in 1978 dollars' -> 'the real price'; 'the price in 1978 dollars and the log of that' -> '... and
    the log of the real price'."""
    notes = []
    for pattern, replacement in _REAL_AMOUNT:
        def real(m: re.Match, replacement: str = replacement) -> str:
            said = m.expand(replacement)
            notes.append(f"{m.group(0)!r} read as {said!r}: an amount in one year's money is the real one")
            return said
        text = pattern.sub(real, text)

    def of_item(m: re.Match) -> str:
        item = re.sub(r"^(?:and|or)\s+", "", m.group("item").strip())
        said = f"{m.group('before')}, {m.group('joint') or ''}the {m.group('what')} of the {item}"
        notes.append(f"{m.group(0).strip(' ,:')!r} read as {said.strip(' ,:')!r}")
        return said

    return _OF_THE_ONE_BEFORE.sub(of_item, text), notes


def _elided(text: str) -> tuple[str, list[str]]:
    """'only 3 heights: the one of the child, of the father and of the mother' -> 'only the height of the child,
    the height of the father and the height of the mother': a counted heading whose list leaves its noun unsaid."""
    notes = []

    def rewrite(m: re.Match) -> str:
        noun, listed = m.group(2), m.group(3)
        items = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", listed)
        if len(items) < 2 or not all(re.fullmatch(r"(?:(?:the\s+)?(?:one|1)\s+|that\s+|those\s+)?of\s+.+", i) for i in items):
            return m.group(0)
        said = ", ".join(re.sub(r"^(?:(?:the\s+)?(?:one|1)\s+|that\s+|those\s+)?of\s+", f"the {noun} of ", i) for i in items)
        notes.append(f"{m.group(0)!r} read as {said!r}")
        return said

    return re.sub(r"\b(\d+|two|three|four|five|six|seven|eight|nine|ten)\s+([a-z]+?)(?:e?s)?\s*:\s*([^.;:!?]+)",
                  rewrite, text, flags=re.I), notes


def _shared_possessions(text: str) -> tuple[str, list[str]]:
    """'the father's and the mother's years of schooling' -> 'the father's years of schooling and the mother's
    years of schooling': two owners of one thing said once, after the second."""
    notes = []

    def rewrite(m: re.Match) -> str:
        first, second, thing = m.group(1), m.group(2), m.group(3).strip()
        said = f"{first} {thing} and {second} {thing}"
        notes.append(f"{m.group(0)!r} read as {said!r}")
        return said

    owner = r"(?:the\s+|his\s+|her\s+|their\s+)?(?!(?:it|that|he|she|what|there|here|who|where|let|how)'s)[a-z]+'s"
    thing = r"(?:[a-z-]+\s+){0,3}?[a-z-]+"
    return re.sub(rf"\b({owner})\s+(?:and|or)\s+({owner})\s+({thing})(?=\s*(?:[,;.:!?)]|\band\b|\bor\b|$))",
                  rewrite, text, flags=re.I), notes


def _owned(text: str, columns: tuple[str, ...]) -> tuple[str, list[str]]:
    """'the adult height of each child' -> 'the childHeight': a measure said of its owner, when the two
    words are together a column's name (childHeight beside childNum and midparentHeight)."""
    two_words = {}
    for name in columns:
        words = name_parts(name).words
        if len(words) == 2:
            two_words.setdefault(frozenset(stem(w) for w in words), []).append(name)
    notes = []

    def named_by(words: str, owner: str) -> str | None:
        owner = stem(_SINGULAR.get(owner.lower(), owner))
        for word in words.split():
            named = two_words.get(frozenset({stem(word), owner}), [])
            if len(named) == 1 and stem(word) != owner:
                return named[0]
        return None

    def of_owner(m: re.Match) -> str:
        named = named_by(m.group(2), m.group(3))
        if named:
            notes.append(f"{m.group(0)!r} read as {named!r}")
        return f"{m.group(1)}{named}" if named else m.group(0)

    def owners(m: re.Match) -> str:  # "the children's adult heights"
        words = m.group(3).split()
        for i in range(len(words)):
            named = named_by(words[i], m.group(2))
            if named:
                notes.append(f"{m.group(0)!r} read as {named!r}")
                # 'every child's weight': what is said of each row, not the row ('every childWeight' would be)
                determiner = "the " if m.group(1).strip().lower() in {"each", "every"} else m.group(1)
                return " ".join([f"{determiner}{named}", *words[i + 1:]])
        return m.group(0)

    text = re.sub(r"\b(the\s+|its\s+|their\s+|his\s+|her\s+)((?:[a-z]+\s+)?[a-z]+)\s+of\s+"
                  r"(?=(?:each|every|the|a|an|this|that|their|its)\s+([a-z]+)\b)(?:each|every|the|a|an|this|that|their|"
                  r"its)\s+[a-z]+\b", of_owner, text, flags=re.I)
    text = re.sub(r"\b((?:the|a|each|every)\s+)([a-z]+)(?:'s|')\s+((?:[a-z]+\s+)?[a-z]+)\b", owners, text, flags=re.I)
    return text, notes


# plurals that a stemmer does not bring back to their singular
_SINGULAR = {"children": "child", "people": "person", "men": "man", "women": "woman", "mice": "mouse", "feet": "foot",
             "teeth": "tooth", "geese": "goose"}


def _reordered(text: str, lang: str) -> str:
    """Romance word order brought to English: '7 next days' -> 'next 7 days' ('10 next business days' too), '14 days
    previous' -> 'previous 14 days',
    'the area built' -> 'the built area';
    German puts the verb of a 'whether' clause last: 'whether a respondent married is' -> 'whether a respondent is
    married'."""
    units = r"(?:(?:business|trading|working|calendar) )?(?:minutes|hours|days|weeks|months|quarters|years|steps)"
    text = re.sub(rf"\b(\d+(?:\.\d+)?) (next|last|previous) ({units})", r"\2 \1 \3", text)
    text = re.sub(rf"\b(\d+(?:\.\d+)?) ({units}) (previous|last|next|following)\b", r"\3 \1 \2", text)
    if lang == "de":
        text = re.sub(r"\b(whether (?:a|the|he|she|it|they)(?: [\w-]+)?) ([\w-]+) (is|are|was|were)\b", r"\1 \3 \2", text,
                      flags=re.IGNORECASE)
        # a relative clause's participle last: 'die Runs, die ein Team in der Saison erzielt hat' (read 'the Runs, the a
        # Team into the season scored hat') -> 'the Runs scored a Team into the season': the participle by its noun
        text = re.sub(r",\s+(?:the|which|that|who)\s+([^,.;:!?]{1,60}?)\s+([a-z]+(?:ed|en|t))\s+(?:hat|has|have|haben|had|hatte|"
                      r"is|are|was|were|ist|sind|wurde|wurden)(?=\s*(?:[.;,!?]|$))", r" \2 \1", text)
    if lang in ("es", "fr"):  # the adjective after its noun: 'la superficie construida' -> 'the built area'
        text = re.sub(r"\b(the|a|an) ([a-z]+) (built|total|real|nominal|net|gross|average|mean|annual|monthly|daily|"
                      r"weekly|maximum|minimum|living|paid)\b", r"\1 \3 \2", text)
    return text


def _strip_accents_marks(text: str) -> str:
    return text.replace("¿", "").replace("¡", "").replace("\u2019", "'")


@lru_cache(maxsize=256)
def _yes_no_columns(text: str) -> tuple[str, list[str]]:
    """'the three yes/no columns A, B and C' -> 'the three binary columns ...': a slash there joins no two items;
    'the one with yes/no if X' -> 'the one whether X'."""
    said = re.sub(r"\byes\s*/\s*no(?=[\s-]+(?:columns?|fields?|flags?|variables?|indicators?))", "binary", text,
                  flags=re.IGNORECASE)
    # 'the one with yes/no if person is smoking now': the answer's kind said before the question it answers; the
    # question names the column, the 'no' in it negates nothing
    said = re.sub(r"\b(?:with\s+)?(?:an?\s+|the\s+)?(?:yes\s*/\s*no|yes[- ]or[- ]no|true\s*/\s*false|0\s*/\s*1)"
                  r"(?:\s+(?:answer|value|flag))?\s*,?\s+(?:for\s+|on\s+|about\s+|saying\s+|telling\s+)?"
                  r"(?:if|whether)\b", "whether", said, flags=re.IGNORECASE)
    return said, []


def _limit_in_parentheses(text: str) -> tuple[str, list[str]]:
    """'on income, age and the food share (those four only)' -> '..., nothing else': a parenthesis that restates a
    list as the whole of it names no column of its own ('Inputs (nothing else): ...' heads the list, and stays)."""
    count = r"(?:\s+(?:\d+|two|three|four|five|six|seven|eight|nine|ten|both))?"
    said = re.sub(rf"\s*\(\s*(?:(?:only|just)\s+(?:those|these|them){count}|(?:those|these|the){count}\s+(?:only|alone)|"
                  r"(?:and\s+)?nothing\s+(?:else|more)|no\s+others?)\s*\)(?!\s*:)", ", nothing else", text, flags=re.IGNORECASE)
    return said, ([f"a limit in parentheses read as 'nothing else': {said!r}"] if said != text else [])


def data_names(path: str | None) -> tuple[str, ...]:
    """What a user may call the data: its file's name and the parts of it ('wooldridge__minwage.csv': wooldridge,
    minwage)."""
    if not path:
        return ()
    stem = Path(str(path)).name.split(".")[0]
    parts = [w for w in re.split(r"__|[^\w]|_", stem) if len(w) >= 4]
    return tuple(dict.fromkeys([stem, *parts]))


# words that say a name is the data's: 'the minwage data', 'table fertil2', 'die Tabelle Hsb82 aus dem Paket mlmRev'
_DATA_WORDS = (r"data|dataset|data\s?set|table|tables|file|csv|frame|dataframe|sample|survey|panel|package|paquet|"
               r"tabelle|paket|datensatz|daten|tabla|paquete|datos|donn[ée]es|jeu\s+de\s+donn[ée]es")


def _data_named(text: str, names: tuple[str, ...]) -> tuple[str, list[str]]:
    """'wooldridge::minwage', 'the minwage data from wooldridge', 'la table minwage du paquet wooldridge': where the
    data's own name stands as the data's, it is no column's, though a column may share it (minwage in minwage)."""
    if not names:
        return text, []
    notes: list[str] = []
    name = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))

    def neutral(m: re.Match) -> str:
        notes.append(f"{m.group(0).strip()!r} names the data")
        return " ".join(w for w in (m.group("before"), m.group("after")) if w) or "the data"

    shapes = (rf"(?P<before>)(?<![\w.])(?:{name})\s*::?\s*(?:{name})(?![\w])(?P<after>)",  # wooldridge::minwage
              rf"(?P<before>\b(?:{_DATA_WORDS}))\s+(?:{name})(?![\w])(?P<after>)",  # 'table minwage'
              rf"(?P<before>)(?<![\w.])(?:{name})\s+(?P<after>(?:{_DATA_WORDS})\b)",  # 'minwage data'
              rf"(?P<before>)(?<![\w.])(?:{name})\s*\((?:{name})\)(?P<after>)",  # 'guImmun (mlmRev)'
              rf"(?P<before>)(?<![\w.])(?:{name})\s+(?:{name})(?![\w])(?P<after>)")  # 'wooldridge minwage'
    for shape in shapes:
        text = re.sub(shape, neutral, text, flags=re.IGNORECASE)
    return text, notes


def canonical(instruction: str, columns: tuple[str, ...] = (), data: tuple[str, ...] = ()) -> Canonical:
    """The one form every rule reads: one line, English request words, numbers as digits, formulas as words; `data`:
    the names the data goes by (data_names), said as the data's and so no column's."""
    rewrites: list[str] = []
    text = unicodedata.normalize("NFC", _strip_accents_marks(instruction))
    text, notes = _data_named(text, data)
    rewrites += notes
    text, notes = _python_code(text)
    rewrites += notes
    text, notes = _json_objects(text)
    rewrites += notes
    text, notes = _unit_in_key(text, columns)
    rewrites += notes
    text, notes = _bullets(text)
    rewrites += notes
    lang = detect_language(text)
    text = _numbers_as_written(text, lang)
    if lang != "en":
        protected, kept = _protect(text, columns)
        translated = _translate(protected, lang)
        for key, name in kept.items():
            translated = translated.replace(key, name)
        translated = _reordered(translated, lang)
        # ('non deve superare i 20 MB', 'dépasser les 20 Mo': the article a bound takes before its number in these languages)
        translated = re.sub(r"\b(exceed|than|most|least|under|below|above|over)\s+the\s+(?=\d)", r"\1 ", translated)
        rewrites.append(f"read as {_NAMES[lang]}: {translated!r}")
        text = translated
    # (a translation is English by now: 'ne doit pas prendre plus de' reads as 'must not take more than')
    text = _learner_english(text)
    if lang == "en":
        text, notes = _spelling(text, columns)
        rewrites += notes
    # in this order: a range names columns a restatement or an owner may then stand for ('i.e. game through bat_avg')
    for step in (_metric_restated, _metric_pronoun, _yes_no_columns, _limit_in_parentheses, _limited_heading, _formula, _function_calls,
                 lambda t: _ranges(t, columns), lambda t: _restated(t, columns), _elided, _shared_possessions,
                 lambda t: _measure_of_each(t, columns),
                 _owners_in_parentheses,
                 _asides_in_a_phrase, _amounts_and_references,
                 lambda t: _whether_items(t, columns), lambda t: _size_items(t, columns), _quantity_items,
                 lambda t: _owned(t, columns), lambda t: _named_in_parentheses(t, columns),
                 lambda t: _glosses(t, columns)):
        text, notes = step(text)
        rewrites += notes
    text = re.sub(r"[ \t]{2,}", " ", text)
    return Canonical(text=text, language=lang, rewrites=rewrites)


_NAMES = {"fr": "French", "de": "German", "es": "Spanish", "it": "Italian", "en": "English"}
