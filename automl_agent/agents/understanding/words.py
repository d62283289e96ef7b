"""Words as people write them and as columns are named: tokens, stems, number words, column-name splitting."""

from __future__ import annotations

from . import rx as re  # the re functions over a larger compile cache
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")

# trailing name parts that give a unit, not a meaning: ApplicantIncome_USD, body_mass_g, LoanAmount_k
UNITS = {
    "usd": "dollars", "eur": "euros", "gbp": "pounds", "dollars": "dollars", "euros": "euros",
    "g": "grams", "kg": "kilograms", "lb": "pounds", "lbs": "pounds", "mg": "milligrams",
    "mm": "millimetres", "cm": "centimetres", "m": "metres", "km": "kilometres", "in": "inches", "ft": "feet",
    "sqft": "square feet", "sqm": "square metres", "m2": "square metres",
    "pct": "percent", "perc": "percent", "c": "celsius", "f": "fahrenheit", "kpa": "pressure", "psi": "pressure",
    "s": "seconds", "sec": "seconds", "ms": "milliseconds", "min": "minutes", "h": "hours", "hrs": "hours",
    "k": "thousands", "mn": "millions", "kwh": "kilowatt hours", "mw": "megawatts", "kw": "kilowatts",
    "seconds": "seconds", "secs": "seconds", "minutes": "minutes", "mins": "minutes", "hours": "hours",
    "days": "days", "weeks": "weeks", "months": "months", "years": "years", "yrs": "years",
    "mmhg": "millimetres of mercury", "dl": "decilitres", "ml": "millilitres", "l": "litres", "bpm": "beats per minute",
    "mph": "miles per hour", "kmh": "kilometres per hour", "percent": "percent",
}
# name parts that carry no meaning of their own: is_fraud, has_churned, num_visits
FILLER = {"is", "has", "had", "was", "the", "of", "a", "an", "num", "no", "nr", "n", "flag", "ind", "col", "val",
          "value", "id", "label", "target", "y", "yn", "to", "in", "on", "at", "for", "per", "by", "and", "or"}
STOPWORDS = {
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "by", "with", "from", "and", "or", "is", "are", "be",
    "will", "would", "should", "can", "could", "please", "me", "my", "our", "we", "us", "i", "you", "it", "its",
    "this", "that", "these", "those", "each", "every", "some", "any", "which", "what", "who", "whose", "how",
    "whether", "if", "as", "so", "do", "does", "did", "not", "no", "them", "their", "they", "there", "here", "than",
    "then", "into", "up", "out", "about", "based", "using", "use", "given", "model", "build", "train", "make",
    "create", "develop", "want", "need", "like", "get", "going", "one", "data", "table", "dataset", "column",
    "columns", "file", "csv", "predict", "prediction", "predictions", "forecast", "estimate", "classify",
    "classifier", "regression", "classification", "task", "someone", "person", "people", "thing", "things",
}

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}
_SCALE_WORDS = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}


# past forms that share no stem with their verb: 'whether the favourite won' says favwin as 'wins' would
_IRREGULAR_PAST = {
    "won": "win", "lost": "lose", "sold": "sell", "bought": "buy", "paid": "pay", "grew": "grow", "grown": "grow",
    "ran": "run", "went": "go", "gone": "go", "took": "take", "taken": "take", "made": "make", "spent": "spend",
    "got": "get", "gave": "give", "given": "give", "drove": "drive", "driven": "drive", "flew": "fly", "flown": "fly",
    "rode": "ride", "ridden": "ride", "wrote": "write", "written": "write", "ate": "eat", "eaten": "eat",
    "drank": "drink", "fell": "fall", "fallen": "fall", "built": "build", "held": "hold", "kept": "keep",
    "seen": "see", "stole": "steal", "stolen": "steal", "chose": "choose",
    "chosen": "choose", "began": "begin", "begun": "begin", "caught": "catch", "taught": "teach", "brought": "bring",
    "fought": "fight", "lent": "lend", "sent": "send", "slept": "sleep", "led": "lead",
    "sank": "sink", "sunk": "sink", "swam": "swim", "threw": "throw", "thrown": "throw", "broke": "break",
    "broken": "break", "spoke": "speak", "spoken": "speak", "shrank": "shrink",
    "struck": "strike", "sought": "seek", "thought": "think", "told": "tell", "understood": "understand",
}


def base_form(word: str) -> str:
    """The verb an irregular past form belongs to ('won' -> 'win'); any other word as it is."""
    return _IRREGULAR_PAST.get(word, word)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return _STEMMER.stemWord(word.lower())


def split_name(name: str) -> list[str]:
    """'ApplicantIncome_USD' -> ['applicant', 'income', 'usd']; 'Length1_cm' -> ['length', '1', 'cm'];
    'Glucose_mg_dL' -> ['glucose', 'mg', 'dl'] (a unit keeps its own capitals)."""
    segments = re.split(r"[^A-Za-z0-9]+", name)
    if len(segments) > 1:
        return [w for s in segments if s for w in ([s.lower()] if s.lower() in UNITS else split_name(s))]
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    spaced = re.sub(r"([A-Za-z])(\d)|(\d)([A-Za-z])", lambda m: " ".join(g for g in m.groups() if g), spaced)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


@dataclass(frozen=True)
class NameParts:
    words: tuple[str, ...]  # the words that carry meaning ('applicant', 'income')
    unit: str | None  # what the trailing unit says ('dollars')

    @property
    def stems(self) -> tuple[str, ...]:
        return tuple(stem(w) for w in self.words)

    @property
    def phrase(self) -> str:
        return " ".join(self.words) + (f" in {self.unit}" if self.unit else "")


@lru_cache(maxsize=4096)
def name_parts(name: str) -> NameParts:
    parts = split_name(name)
    unit = None
    if len(parts) > 2 and parts[-1] in UNITS and parts[-2] in UNITS:  # vibration_mm_s, speed_km_h
        unit = f"{UNITS[parts[-2]]} per {UNITS[parts[-1]].removesuffix('s')}"
        parts = parts[:-2]
    elif len(parts) > 1 and parts[-1] in UNITS:
        unit = UNITS[parts[-1]]
        parts = parts[:-1]
    words = tuple(w for w in parts if w not in FILLER and not w.isdigit()) or tuple(parts)
    return NameParts(words, unit)


@dataclass(frozen=True)
class Token:
    text: str  # lower-cased as written
    stem: str
    start: int  # character offset in the normalised text

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def normalise(text: str) -> str:
    """Lower case, number words as digits ('ten milliseconds' -> '10 milliseconds', 'ninety percent' -> '90
    percent'), CamelCase written in the text split ('SalePrice' stays findable as 'sale price' too)."""
    return numbers_to_digits(text.lower())


# 'bc thats cheating', 'cuz it leaks': because, where a reason follows (a column may be called BC)
_BECAUSE = re.compile(r"\b(?:bc|b/c|cuz|coz|cos)\s+(?=(?:it|its|it's|thats|that|that's|they|theyre|they're|this|these|"
                      r"those|i|we|he|she|the|of)\b)")


def expand_shorthand(text: str) -> str:
    """'w/o' as 'without', 'w/' as 'with' ('ONLY w/ income + credit score'), 'bc' before a reason as 'because'."""
    return _BECAUSE.sub("because ", re.sub(r"\bw/\s*", "with ", re.sub(r"\bw/o\b", "without", text)))


def tokens(text: str) -> list[Token]:
    out = []
    # letters with accents are letters: 'été' is a word, not a lone 't' that could name a column (LEN.T)
    for m in re.finditer(r"[^\W_]+(?:'[^\W_]+)?", text.lower()):
        word = m.group(0).removesuffix("'s")
        out.append(Token(word, stem(word), m.start()))
    return out


_DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_SPOKEN_DECIMALS = re.compile(rf"\bpoint((?:[\s-]+(?:{'|'.join(_DIGIT_NAMES)})\b)+)", re.IGNORECASE)
_DECIMAL_POINT = re.compile(r"\b(\d+)\s+point\s+(\d+)\b", re.IGNORECASE)


def numbers_to_digits(text: str) -> str:
    """Replace runs of number words with digits: 'ninety five' -> '95', 'two hundred' -> '200', 'zero point six'
    -> '0.6', 'twenty one point two five' -> '21.25'; 'a million' stays (handled where units are read)."""
    # the digits after 'point' are read one by one ('point eight five' is .85, not .13)
    text = _SPOKEN_DECIMALS.sub(lambda m: "point " + "".join(
        str(_DIGIT_NAMES.index(w.lower())) for w in re.split(r"[\s-]+", m.group(1).strip())), text)
    return _DECIMAL_POINT.sub(r"\1.\2", _number_runs(text))


def _number_runs(text: str) -> str:
    words = re.split(r"(\s+|-)", text)
    out: list[str] = []
    run: list[str] = []

    def flush():
        if not run:
            return
        total, current = 0, 0
        for w in run:
            if w in NUMBER_WORDS:
                current += NUMBER_WORDS[w]
            elif w in _SCALE_WORDS:
                current = max(current, 1) * _SCALE_WORDS[w]
                if _SCALE_WORDS[w] >= 1000:
                    total, current = total + current, 0
        out.append(str(total + current))
        run.clear()

    pending_sep = ""
    for piece in words:
        if piece.strip() == "" or piece == "-":
            if run:
                pending_sep = piece
                continue
            out.append(piece)
            continue
        # '(ten minutes max)': a bracket around a number word stays as it was (a quoted 'five' is a name, left alone)
        head = piece[:len(piece) - len(piece.lstrip("(["))]
        key = piece.strip(".,;:!?)](").lower()
        tail = piece[len(piece.rstrip(".,;:!?)]")):]
        if key == "and" and run and run[-1] in _SCALE_WORDS:  # 'one hundred and fifty'
            continue
        if key in NUMBER_WORDS or (key in _SCALE_WORDS and run and not head):
            if head:
                if run:
                    flush()
                    out.append(pending_sep or " ")
                    pending_sep = ""
                out.append(head)
            if run and key in NUMBER_WORDS and not _continues(run[-1], key):  # 'three five-minute slots': two numbers
                flush()
                out.append(pending_sep or " ")
            run.append(key)
            pending_sep = ""
            if tail:
                flush()
                out.append(tail)
            continue
        if run:
            flush()
            out.append(pending_sep or " ")
            pending_sep = ""
        out.append(piece)
    flush()
    joined = "".join(out)
    # 'a minute and a half' -> '1.5 minutes', '2 hours and a half' -> '2.5 hours'
    joined = re.sub(r"\b(?:an?|1|(\d+)) (second|minute|hour|day|week|month|quarter|year)s? and a half\b",
                    lambda m: f"{m.group(1) or 1}.5 {m.group(2)}s", joined)
    # 'the next year and a half' -> 'the next 1.5 years' (a span placed in time, its 'one' left unsaid)
    joined = re.sub(r"\b(next|coming|following|upcoming|past|last|previous|first|final) (second|minute|hour|day|week|"
                    r"month|quarter|year) and a half\b", r"\1 1.5 \2s", joined)
    # 'two and a half minutes' -> '2.5 minutes'
    for words, fraction in (("a half|one half", ".5"), ("a quarter|one quarter", ".25"), ("three quarters|3 quarters", ".75")):
        joined = re.sub(rf"\b(\d+) and (?:{words})\b", rf"\g<1>{fraction}", joined)
    return joined


def _continues(previous: str, word: str) -> bool:
    """Whether a number word goes on the number before it: 'twenty five' is 25, 'hundred five' 105, but 'three
    five' is two numbers."""
    if previous in _SCALE_WORDS:
        return True
    value = NUMBER_WORDS[previous]
    return value >= 20 and value % 10 == 0 and 0 < NUMBER_WORDS[word] < 10


_SHORT_FORMS = {"number": ("no", "nr"), "numbers": ("no", "nr")}


def acronym_families(names: list[str]) -> dict[str, list[str]]:
    """'afc' -> [LowAFC, MeanAFC]: an acronym written in capitals at the end of two or more names, after a qualifier
    each, so words that spell the acronym say whose the column is (the antral follicle count), not which."""
    families: dict[str, list[str]] = {}
    for name in names:
        m = re.fullmatch(r"([A-Za-z]*[a-z])([A-Z]{3,5})", name)
        if m:
            families.setdefault(m.group(2).lower(), []).append(name)
    return {acronym: family for acronym, family in families.items() if len(family) >= 2}


def _spelt_acronym(words: list[str], acronym: str) -> bool:
    """'antral follicle count(s)' spells afc: one word per letter, each at least three letters long."""
    return len(words) == len(acronym) and all(len(w) >= 3 and w[0] == a for w, a in zip(words, acronym))


def acronyms_spelt(words: list[str], names: list[str]) -> list[tuple[int, int, list[str]]]:
    """(first word, how many words, the family) for each run of the words that spells an acronym two or more names
    end in: 'the antral follicle count' with LowAFC and MeanAFC gives (1, 3, [LowAFC, MeanAFC])."""
    return [(i, len(acronym), family) for acronym, family in acronym_families(names).items()
            for i in range(len(words) - len(acronym) + 1) if _spelt_acronym(words[i:i + len(acronym)], acronym)]


def abbreviates_phrase(name: str, words: list[str]) -> bool:
    """'Bwt' abbreviates 'body weight', 'Hwt' 'heart weight', 'CPI' 'consumer price index', 'lvrat' 'loan value
    ratio': every word gives the name its first letter and maybe more of its letters, in order, and nothing of the
    name is left over."""
    if not words or len(words) > len(name) or not name.isalpha():
        return False
    low = name.lower()
    letters = len(words) - 1
    if letters in (1, 2) and all(len(w) >= 3 for w in words[:-1]) and len(low) - letters >= 3 \
            and low[:letters] == "".join(w[0] for w in words[:-1]) and words[-1].startswith(low[letters:]):
        # a letter for whose it is or what was done to it, then the word: 'memployment' the mother's employment,
        # 'feduc', 'lrprice' the log of the real price
        return True
    if len(words) >= 3 and len(words[0]) >= 3 and len(low) >= 5 and low[0] == words[0][0] \
            and abbreviates_phrase(low[1:], words[1:]):
        # the same letter before a name that abbreviates a phrase: 'lmktval' the log of the market value
        return True
    # a name that could be a word ('airco', 'recroom') is spelt only by two or more letters of every word
    least = 1 if compact(name) else 2
    if least == 2 and (len(name) < 5 or len(words) < 2):
        return False
    name = name.lower()

    @lru_cache(maxsize=None)
    def fits(i: int, j: int) -> bool:  # name[i:] from words[j:]
        if j == len(words):
            return i == len(name)
        word = words[j]
        if i >= len(name) or name[i] != word[0]:
            return False
        # a short form that does not take the word's letters in order: 'no' and 'nr' for number (seqno)
        if any(name.startswith(short, i) and fits(i + len(short), j + 1) for short in _SHORT_FORMS.get(word, ())):
            return True
        # a whole short word, then the next word: 'high' + 'b' + 'p' is highbp, 'mean' + 'min' meanmin
        if j < len(words) - 1 and len(word) <= 5 and name.startswith(word, i) and fits(i + len(word), j + 1):
            return True
        # the first letter, then any letters of the same word in order, then the next word
        k = i + 1
        pos = 1
        if least == 1 and fits(k, j + 1):
            return True
        last = j == len(words) - 1
        # only the last word gives more than a few letters: 'months' is not 'monthly spending' ('faminc' is
        # 'family income', 'huswage' 'husband wage'); a long word may give four ('charpp', characters per page)
        while k < len(name) and (last or k - i < (3 if least == 1 and len(word) < 8 else 4)):
            found = word.find(name[k], pos)
            if found < 0:
                return False
            k, pos = k + 1, found + 1
            if k - i >= least and fits(k, j + 1):
                return True
        return False

    return fits(0, 0)


def compounds_spelt(text: str, names: list[str]) -> list[tuple[int, int, str]]:
    """'the spread-covered flag' with spread and sprdcvr: words a hyphen joins that spell one name together
    (start, end, name); the first of them naming another column is no mention of it."""
    found = []
    for m in re.finditer(r"[a-z]+(?:-[a-z]+)+", text.lower()):
        words = m.group(0).split("-")
        spelt = [n for n in names if n.lower() == "".join(words) or abbreviates_phrase(n, words)]
        if len(spelt) == 1:
            found.append((m.start(), m.end(), spelt[0]))
    return found


def run_of_beginnings(name: str, words: list[str]) -> bool:
    """husEd is 'hus' + 'ed', the beginnings of 'husband' and 'education' run together: each word gives the name its
    first letters in one piece (two or more each), in order, and nothing is left."""
    low = name.lower()
    if not low.isalpha() or len(words) > len(low):
        return False

    def fits(i: int, j: int) -> bool:
        if j == len(words):
            return i == len(low)
        word = words[j].lower()
        return any(low.startswith(word[:k], i) and fits(i + k, j + 1) for k in range(min(len(word), len(low) - i), 1, -1))
    return fits(0, 0)


def abbreviates_with_a_word_unsaid(name: str, first: str, last: str) -> bool:
    """'atotinc' for 'applicant income': the name starts as the first word does, ends with the start of the last
    (three letters or more) and holds two to four letters between that the words do not give (a 'total' left
    unsaid). Such a column is as likely as the one the words spell exactly, so the two are asked about."""
    parts = split_name(name) if name != name.lower() and name != name.upper() else []
    name = name.lower()
    if not name.isalpha() or not first or name[0] != first[0]:
        return False
    if len(parts) >= 2:
        # a name whose capitals mark its words ('WAUCoast', 'NSWSthCo'): the word left unsaid is one of them, so
        # 'wales coast' spells no WAUCoast (its 'AU' is no word between 'wales' and 'coast')
        return len(parts) >= 3 and first.startswith(parts[0]) and last.startswith(parts[-1])
    for head in range(1, min(len(first), 4) + 1):
        if not first.startswith(name[:head]):
            break
        for tail in range(3, len(last) + 1):
            gap = len(name) - head - tail
            if 2 <= gap <= 4 and name.endswith(last[:tail]):
                return True
    return False


@lru_cache(maxsize=1)
def english_vocabulary() -> frozenset[str]:
    """Whole English words (the bundled sentence encoder's vocabulary); empty when the encoder is not installed."""
    from ...trainkit.runtime import minilm_available, minilm_vocabulary

    if not minilm_available():
        return frozenset()
    return frozenset(w for w in minilm_vocabulary() if w.isalpha())


def short_form_at_end(name: str, word: str) -> bool:
    """'gpa' in colgpa: a short form (no English word of its own) at the end of a name, after a qualifier of two or
    three letters."""
    # (a qualifier the name sets apart by its capitals may be a word of four: termGPA beside priGPA)
    longest = 4 if split_name(name)[-1:] == [word] else 3
    return len(word) >= 3 and 2 <= len(name) - len(word) <= longest and name.isalpha() \
        and name.lower().endswith(word) and word not in english_vocabulary()


def skeleton_at_end(name: str, word: str) -> bool:
    """'scr' in favscr and undscr for 'scores', 'fnl' in stndfnl for 'final': a word written without its vowels at
    the end of a run-together name, after two to four code letters."""
    low = name.lower()
    said = word[:-1] if word.endswith("s") and len(word) > 4 else word
    said = said.rstrip("aeiou")
    if not low.isalpha() or len(said) < 3:
        return False
    for k in (3, 4):
        tail = low[-k:]
        if 2 <= len(low) - k <= 4 and not re.search(r"[aeiou]", tail) and tail[-1] == said[-1] and shortens(tail, said):
            return True
    return False


def word_inside_a_code(name: str, word: str) -> bool:
    """'math' in tmathssk, 'read' in treadssk ('reading'): an English word of four letters or more written whole
    inside a run-together name that is no word itself, with two to four code letters around it, on both sides (a
    total's t before, a scaled score's ss and a wave's k after; a word that begins the name, as 'work' does workprg,
    is the name's own first word, which 'whatever works best' does not say)."""
    low = name.lower()
    if not low.isalpha() or low != name or len(word) < 4 or len(low) - len(word) not in (2, 3, 4) \
            or low in english_vocabulary() or word not in english_vocabulary():
        return False
    at = low.find(word, 1)
    return at > 0 and at + len(word) < len(low)


def word_ending_a_code(name: str, word: str) -> bool:
    """'food' in lnrlfood, 'total' in lntotal: an English word of four letters or more that ends a run-together name
    that is no word itself, after two to four code letters (a log's ln or l, a real value's r)."""
    # (the years a family of such names is numbered by are no part of it: 'Bush' in gwbush00 and gwbush04)
    low = re.sub(r"(?<=[a-z])\d{2,4}$", "", name.lower())
    return low.isalpha() and name.lower() == name and len(word) >= 4 and 2 <= len(low) - len(word) <= 4 \
        and low.endswith(word) and low not in english_vocabulary() and word in english_vocabulary() \
        and (len(low) - len(word) <= 3 or low[:len(low) - len(word)] not in english_vocabulary())


def said_or_stem(test: Callable[[str, str], bool], name: str, token: Token) -> bool:
    """A name test on a word as said or on its stem ('reading' is 'read' in treadssk)."""
    return test(name, token.text) or (token.stem != token.text and test(name, token.stem))


def word_or_stem_inside_a_code(name: str, token: Token) -> bool:
    return said_or_stem(word_inside_a_code, name, token)


def letter_before_word(name: str, word: str) -> bool:
    """'employment' in memployment: one letter (whose it is, or what was done to it) before a word."""
    return len(word) >= 4 and len(name) == len(word) + 1 and name.lower().endswith(word)


# the units a length of time is counted in, as said before what was counted ('years of school')
COUNTED_IN_TIME = frozenset({"years", "months", "weeks", "days", "hours", "minutes"})


def compact(name: str) -> bool:
    """A name written short ('Bwt', 'CPI', 'lvrat'), not a word ('age'): letters only, few vowels or all capitals."""
    if not name.isalpha() or not 2 <= len(name) <= 6:
        return False
    vowels = sum(ch in "aeiou" for ch in name.lower()) / len(name)
    return name.isupper() or vowels <= 0.25 or (len(name) >= 4 and vowels <= 0.4)  # 'Low' and 'sex' are words


def shortens(short: str, word: str) -> bool:
    """'yrs' shortens 'years', 'hp' 'horsepower': the same first letter, the rest in order."""
    if len(short) < 2 or len(word) <= len(short) or short[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(ch in rest for ch in short[1:])
