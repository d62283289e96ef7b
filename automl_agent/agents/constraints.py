"""Deterministic reading of constraints and hints from an instruction.

Whatever a brain answers, the numbers users wrote are read here too and win: a constraint number must equal
what the instruction says (cross-check), and the metric direction follows the metric.
"""

from __future__ import annotations

from .understanding import rx as re  # the re functions over a larger compile cache

from . import metrics
from .contracts import Constraint, DataProfile, TaskType
from .understanding.clauses import RATE_UNIT
from .understanding.words import normalise

# "5 percentage points" is 5 in the target's own units (a rate in %), not 0.05
_NUMBER = r"(?<![\w.])(\d+(?:[.,]\d+)?|\.\d+)\s*(%|percent(?!age[ -]points?))?"
# a modal's negation and up to two words of its verb: 'can't weigh', 'may not be', 'must not take'
_NEGATED_VERB = r"(?:can't|cannot|can not|must not|mustn't|should not|shouldn't|may not|won't|will not|shall not)\s+(?:\w+\s+){1,2}?"
# bound words, compound and negated forms first ("no more than" holds "more than", "less than or equal to" holds
# "less than"); "under 10 ms" is strict, "at most 10 ms" is not
_BOUNDS: tuple[tuple[str, str], ...] = (
    ("<=", r"at or below|at or under|or less|less than or equal to|lower than or equal to|not more \w+ than|"
           r"(?:not|no) more of|no more than|not more than|no higher than|not higher than|"
           r"no bigger than|no larger than|no greater than|no slower than|not slower than|not (?:to )?exceed(?:ing)?|"
           r"must not exceed|mustn't exceed|should not exceed|shouldn't exceed|can't be (?:larger|bigger|more|higher) than|"
           r"cannot be (?:larger|bigger|more|higher) than|at most|maximum(?: of)?|max\.?|within|up to|<=|≤|=<|"
           # a negated verb before the comparison: 'can't weigh more than 5 MB', 'must not take longer than 2 minutes'
           rf"{_NEGATED_VERB}(?:more|larger|bigger|higher|longer|heavier|slower|greater) than"),
    (">=", r"greater than or equal to|more than or equal to|higher than or equal to|no less than|not less than|"
           r"no lower than|not lower than|no worse than|not worse than|at or above|at least|minimum(?: of)?|min\.?|>=|≥|=>|"
           r"reach(?:es)?|achieves?|hits?|"
           rf"{_NEGATED_VERB}(?:less|lower|smaller|fewer|worse) than"),
    ("<", r"under|below|less than|lower than|smaller than|fewer than|faster than|shorter than|quicker than|<"),
    (">", r"above|over|greater than|more than|higher than|exceed(?:s|ing)?|better than|>"),
)
_AFTER = ((r"or (?:less|lower|fewer|under|below|faster)|max(?:imum)?\b|tops|at (?:the )?(?:very )?most|or smaller", "<="),
          # ('0.42 min/mile' is a pace)
          (r"or (?:more|higher|better|above|greater)|at (?:the )?(?:very )?least|min(?:imum)?\b(?!\s*(?:/|per\b))|or over|\+(?![\d.])", ">="))
_GAP = r"[^.\d]{0,40}?"
# 'the F1 score for the injury class, which should be at least 0.35': a relative clause carries the bound further
_RELATIVE_GAP = r"[^.\d;]{0,50}?,\s*(?:which|that)\s+(?:should|must|shall|has to|needs to|ought to|will need to)\s+be\b[^.\d]{0,20}?"


def _number(text: str, percent: str | None) -> float:
    value = float(text.replace(",", "."))
    return value / 100.0 if percent else value


def _metric_pattern() -> str:
    names = sorted(metrics.ALIASES, key=len, reverse=True)
    return "|".join(re.escape(n) for n in names)


def _op_before(phrase: str) -> str | None:
    """The bound the words before a number give: the last bound phrase in them wins ('above 0.6 and latency under');
    a phrase inside a longer one found first ('more than' in 'no more than') does not count."""
    taken: list[tuple[int, int, str]] = []
    for op, pattern in _BOUNDS:
        for m in re.finditer(rf"(?:(?<=\W)|^)(?:{pattern})(?=\W|$)", phrase):
            if not any(a <= m.start() < b or a < m.end() <= b for a, b, _ in taken):
                taken.append((m.start(), m.end(), op))
    return max(taken)[2] if taken else None


def _op_after(phrase: str) -> str | None:
    for pattern, op in _AFTER:
        if re.match(rf"\s*(?:{RATE_UNIT}\s*)?(?:{pattern})", phrase):
            return op
    return None


def _negated_before(text: str, start: int) -> bool:
    before = text[max(0, start - 40):start]
    # ("I don't need anything fancy: if it gets 30% right ...": a colon ends what the negation says, and so does a
    # parenthesis: '(inputs: ..., not id) (accuracy at least 0.6)')
    return bool(re.search(r"\b(?:not|don't|dont|do not|doesn't|no need for|never|ignore|forget)\b[^.;,:!?()]*$", before))


_BULLET = re.compile(r"^\s*(?:[-*•·–]|\d{1,2}[.)])\s+")


def clauses(instruction: str) -> list[str]:
    """A bullet list's items, each one clause (a line that does not start a bullet continues the one before); other
    text, its parts between semicolons. A number on one bullet never belongs to a word on the next ('- metric: AUC' /
    '- max 30 s of training')."""
    lines = instruction.splitlines()
    if sum(1 for line in lines if _BULLET.match(line)) < 2:  # ';' ends a clause too ('metric: AUC; max 30 s')
        parts: list[str] = []
        for part in instruction.split(";"):
            if parts and (re.match(r"\s*(?:it|its|it's|this|that|which|they|and|but|so|or|then)\b", part, re.I)
                          or _bare_number(part)):
                parts[-1] += ";" + part  # 'evaluate it with RMSE; it must be below 800': the same clause goes on
            elif part.strip():
                parts.append(part)
        return parts or [instruction]
    items: list[str] = []
    for line in lines:
        if _BULLET.match(line) or not items:
            items.append(_BULLET.sub("", line))
        else:
            items[-1] += " " + line.strip()
    return [item for item in items if item.strip()]


def _bare_number(part: str) -> bool:
    """A number that names no measure or unit of its own ('anything below 0.80 will not be signed off'): it bounds
    the measure the clause before named."""
    text = re.split(r"[.!?](?:\s|$)", part.lower())[0]  # its first sentence: a time limit may follow in the next
    if not re.search(r"\d", text) or re.search(_SIZE_AND_TIME, text):
        return False
    return not any(re.search(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", text) for alias in metrics.ALIASES)


def _performance_bounds(instruction: str) -> list[Constraint]:
    unit = data_unit(instruction)
    return [c for clause in clauses(instruction) for c in _clause_performance_bounds(clause, unit)]


_THOUSANDS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?k\b(?!-)")
_MAGNITUDES = {"thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9}
MAGNITUDE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(thousand|million|mn|billion|bn)s?\b")


def in_data_unit(number: str, magnitude: str, unit: float) -> float:
    """'150' 'million' on figures in billions (unit 1e9) is 0.15."""
    return float(number) * _MAGNITUDES[magnitude] / unit


def data_unit(instruction: str) -> float:
    """The magnitude the data's figures are written in, where the instruction says it ('the series is in billions
    of AUD', 'sales in thousands'): a bound said in another magnitude ('RMSE under $150 million') is converted to
    it. 1 when it says none."""
    # ('visitor nights in millions', '(revenue, in thousands)': what is counted, then the magnitude it is written in)
    m = re.search(r"\b(?:is|are|was|were|given|measured|recorded|expressed|reported|figures|values|numbers|series|"
                  r"data|column)\s+(?:all\s+)?in\s+(thousands|millions|billions)\b|"
                  r"(?<![\d.])[a-z]{3,},?\s+\(?in\s+(thousands|millions|billions)\b(?!\s+of\s+(?:rows|records|lines))|"
                  # 'the gdp column (billions of dollars)'
                  r"\(\s*(thousands|millions|billions)\s+of\s+(?!rows|records|lines)[a-z$€£]",
                  instruction.lower())
    if m:
        return _MAGNITUDES[next(g for g in m.groups() if g).removesuffix("s")]
    return 1.0


def _clause_performance_bounds(instruction: str, unit: float = 1.0) -> list[Constraint]:
    """Every bound on a score the instruction states, in order; a measure may have two (a range)."""
    # what a clustering score is measured against sits between the measure and its bound ('the Rand index against the
    # species labels must be at least 0.8'); it is said in few words so the gap rule below reads past it
    text = re.sub(r"\b(against|with|to) (?:the )?[\w.-]+ (labels?|classes|column|groups)\b", r"\1 \2", normalise(instruction))
    text = _THOUSANDS.sub(lambda m: f"{float(m.group(1)) * 1000:g}", text)  # 'rmse<3k' is 3000
    # 'RMSE under 1.5 million' is 1500000, or 0.0015 where the figures are in billions
    # (written out, never '1.5e+11': the number read after it stops at the 'e')
    text = MAGNITUDE.sub(lambda m: f"{in_data_unit(m.group(1), m.group(2), unit):.10f}".rstrip("0").rstrip("."), text)
    found: list[Constraint] = []
    metric = _metric_pattern()
    forward = rf"(?<![\w-])({metric})(?![\w-])({_GAP}|{_RELATIVE_GAP}){_NUMBER}"
    backward = rf"({_GAP}){_NUMBER}\s*(?:of\s+|in\s+)?(?:the\s+)?(?<![\w-])({metric})(?![\w-])"
    matches = []
    for m in re.finditer(forward, text):
        alias, between, number, percent = m.groups()
        if re.search(r"[;,]", between) and re.search(rf"\b(?:{_TRAINING_WORDS}|{_LATENCY_WORDS}|size|mb|ms)\b|{metric}", between):
            continue  # the number belongs to another clause ('RMSE, training under 60 s')
        if re.search(r"[;,]|\band\b", between) and re.match(rf"\s*{_SIZE_AND_TIME}", text[m.end():]):
            continue  # '57% accuracy, and no more than 3 minutes of training': a time, in a clause of its own
        matches.append((m.start(), alias, between, number, percent, text[m.end():m.end() + 20], m.group(0)))
    for m in re.finditer(backward, text):
        between, number, percent, alias = m.groups()
        if any(abs(m.start(4) - start) < 3 for start, *_ in matches):
            continue
        matches.append((m.start(4), alias, between + " of ", number, percent, text[m.end(3):m.start(4)], m.group(0)))
    # "off by less than 700 dollars on average (mean absolute error)": the bound and number first, the metric a few
    # words later, nothing between them that belongs to another clause
    later = rf"({_GAP}){_NUMBER}((?:\s+[a-z$€£]+){{1,5}}?)\s*[(\-–:,]?\s*(?:as\s+|in\s+|by\s+)?(?:the\s+)?(?<![\w-])({metric})(?![\w-])"
    for m in re.finditer(later, text):
        between, number, percent, gap, alias = m.groups()
        if any(abs(m.start(5) - start) < 3 for start, *_ in matches) or _op_before(between) is None:
            continue
        unit_only = len(gap.split()) == 1  # "10 minutes MAE": the metric's own unit
        if re.search(rf"\b(?:and|but|with|while|{_TRAINING_WORDS}|{_LATENCY_WORDS})\b", gap) or (
                re.search(_SIZE_AND_TIME, gap) and not unit_only):
            continue
        matches.append((m.start(5), alias, between, number, percent, "", m.group(0)))
    for start, alias, between, number, percent, after, phrase in sorted(matches):
        name = metrics.ALIASES[alias]
        if _negated_before(text, start):
            continue
        op = _op_after(after) or _op_before(between)
        if op is None:
            # "an F1 of 0.6" with no bound word: a performance target means "at least" for scores, "at most" for losses
            if not re.search(r"(\bof\b|=|:|\bis\b|\bbe\b|\btarget\b|\baround\b|\babout\b)", between):
                continue
            op = ">=" if metrics.direction(name) == "maximize" else "<="
        if re.search(r"\b(?:better|worse)\b", between) and metrics.direction(name) == "minimize":
            op = {">=": "<=", ">": "<", "<=": ">=", "<": ">"}[op]  # 'RMSE no worse than 0.5' is at most 0.5
        value = _number(number, percent)
        if (name in {"accuracy", "f1", "precision", "recall", "roc_auc", "r2", "rand_index", "adjusted_rand_index", "nmi"}
                and not percent and 2 <= value <= 100):
            value = value / 100.0  # 'accuracy 85' means 85 %; 1.2 or 120 % stay as said, and are refused as impossible
        found.append(Constraint(name=name, op=op, target=value, kind="performance", phrase=phrase.strip()))
    return found


def parse_performance(instruction: str) -> list[Constraint]:
    """One constraint per measure: the first the instruction states."""
    first: dict[str, Constraint] = {}
    for c in _performance_bounds(instruction):
        first.setdefault(c.name, c)
    return list(first.values())


def stated_bounds(instruction: str) -> list[Constraint]:
    """Every bound the instruction states, a second one on the same measure included."""
    return _performance_bounds(instruction) + parse_complexity(instruction)


def conflicting_bounds(instruction: str) -> tuple[Constraint, Constraint] | None:
    """Two bounds on one measure that no value meets ('accuracy above 0.9 and below 0.8'), or None."""
    bounds = stated_bounds(instruction)
    for low in (c for c in bounds if c.op in (">=", ">")):
        for high in (c for c in bounds if c.name == low.name and c.op in ("<=", "<")):
            if low.target > high.target or (low.target == high.target and "=" not in low.op + high.op):
                return low, high
    return None


_TIME_UNITS = {"ms": 1.0, "millisecond": 1.0, "milliseconds": 1.0, "msec": 1.0, "msecs": 1.0,
               "s": 1000.0, "sec": 1000.0, "secs": 1000.0, "second": 1000.0, "seconds": 1000.0,
               "min": 60_000.0, "mins": 60_000.0, "minute": 60_000.0, "minutes": 60_000.0,
               "h": 3_600_000.0, "hour": 3_600_000.0, "hours": 3_600_000.0,
               "us": 0.001, "µs": 0.001, "microsecond": 0.001, "microseconds": 0.001}
# kB, MB, GB as people read them (1 MB = 1000 kB); KiB, MiB, GiB are binary
_SIZE_UNITS = {"kb": 1 / 1000, "mb": 1.0, "gb": 1000.0, "kib": 1 / 1024, "mib": 1.0, "gib": 1024.0,
               "megabytes": 1.0, "megabyte": 1.0, "kilobytes": 1 / 1000, "kilobyte": 1 / 1000, "gigabytes": 1000.0,
               "gigabyte": 1000.0}
_COUNT_UNITS = {"k": 1e3, "m": 1e6, "b": 1e9, "": 1.0, **_MAGNITUDES}
_SIZE_AND_TIME = r"\b(?:ms|s|sec|secs|seconds?|minutes?|mins?|hours?|h|kb|mb|gb|params?|parameters?|millisec\w*)\b"
_SHORT_UNITS = {"ms", "millisecond", "milliseconds", "msec", "msecs", "us", "µs", "microsecond", "microseconds"}
_TRAINING_WORDS = (r"train(?:ing|ed)?|fit(?:ting)?|finish|search|tuning|build(?:ing)?|run(?:ning)? time|budget|"
                   r"compute\b|computation|cpu time|gpu time|wall[- ]?clock")
_LATENCY_WORDS = (r"latency|inference|predict(?:ion)?s?|forecasts?|respon(?:d|se|ds)|answer(?:ed|s)?|reply|repl(?:ies|y)|"
                  r"request|call|query|serv(?:e|ing)|score|come back|return|real[- ]time|per (?:record|row|sample|item)|each|fast")


def _quantities(text: str, units: str):
    # '10 minutes', '10min', 'a 10-minute budget'; not money ('the price, in $1000s') nor a count of thousands or
    # hundreds ('in 1000s')
    for m in re.finditer(rf"(?<![\w.$€£])(-?\d+(?:\.\d+)?)(?:\s*|-)({units})(?![\w])", text):
        if m.group(2) == "s" and re.fullmatch(r"10+", m.group(1)) and re.search(r"\bin\s+$", text[:m.start()]) \
                and re.match(r"\s*\)", text[m.end():]):
            continue  # '(in 1000s)' says the unit of a column; 'answer in 100s max' is a time
        yield m


_SPOKEN_TIMES = ((r"\b(?:an|one) hour and a half\b", "90 minutes"), (r"\b(?:a\s+)?half\s+(?:an\s+|a\s+)?hour\b", "30 minutes"),
                 (r"\b(?:a\s+)?quarter\s+(?:of\s+)?(?:an\s+)?hour\b", "15 minutes"),
                 (r"\bthree\s+quarters\s+of\s+an\s+hour\b", "45 minutes"),
                 (r"\b(?:a\s+)?half\s+(?:a\s+)?minute\b", "30 seconds"), (r"\b(?:a\s+)?half\s+(?:a\s+)?day\b", "12 hours"))


def parse_complexity(instruction: str) -> list[Constraint]:
    first: dict[str, Constraint] = {}
    for clause in clauses(instruction):
        for c in _clause_complexity(clause):
            first.setdefault(c.name, c)
    return list(first.values())


def _clause_complexity(instruction: str) -> list[Constraint]:
    # 'less than a minute', 'within an hour'
    text = re.sub(r"\b(less than|under|within|below|at most|no more than|inside|no longer than|more than|over)\s+(?:a|an)\s+"
                  r"(minute|hour|second)\b", r"\1 1 \2", normalise(instruction))
    # 'give it half an hour at the very most', 'a quarter of an hour', 'an hour and a half'
    for said, amount in _SPOKEN_TIMES:
        text = re.sub(said, amount, text)
    # 'it can run for an hour tops', 'take a minute at most': one unit, said with an article
    text = re.sub(r"\b(for|spend|spends|take|takes|give it|allow it|allow)\s+(?:a|an|one)\s+(minute|hour)\b", r"\1 1 \2",
                  text)
    text = re.sub(r"(?<![\w.])(?:a|an|one)\s+(minute|hour)\s+(?=tops\b|max\b|maximum\b|at (?:the )?(?:very )?most\b)",
                  r"1 \1 ", text)
    out: dict[str, Constraint] = {}
    time_units = "|".join(sorted((re.escape(u) for u in _TIME_UNITS), key=len, reverse=True))
    errors = "|".join(re.escape(a) for a, n in sorted(metrics.ALIASES.items(), key=lambda x: -len(x[0]))
                      if n in {"mae", "rmse", "mse"})
    # an error in time units is followed by its own name and no number of its own
    metric_after = rf"\s+(?:of\s+)?(?:the\s+)?(?:{errors})(?![\w-])(?![^.;\d]{{0,20}}\d)"
    for m in _quantities(text, time_units):
        value, unit = float(m.group(1)), m.group(2)
        if re.match(metric_after, text[m.end():]):
            continue  # "10 minutes MAE" is an error measured in minutes, not a time limit
        before = text[max(0, m.start() - 70):m.start()]
        clause = re.split(r"[.;]|\band\b|,", before)[-1]
        if _negated_before(text, m.start()):
            continue
        if re.search(r"\b(?:next|following|coming|upcoming|last|past|previous|preceding|prior)\s+$", before) or \
                re.match(r"\s+(?:ahead|out|into the future|of (?:history|context))\b", text[m.end():]):
            continue  # 'forecast the next 30 minutes': a forecast's window, not a time limit
        if re.search(rf"(?<![\w-])(?:{errors})(?![\w-])\s*(?:is|should be|must be|of|:)?\s*(?:under|below|less than|"
                     r"at most|no more than|within|<=?|≤)?\s*(?:about\s+)?$", clause):
            continue  # "RMSE under 600 seconds" is an error measured in seconds
        op = _op_after(text[m.end():m.end() + 16]) or _op_before(clause)
        # ('train_time_limit: 5min  # must finish under this': the comment on the value says its bound)
        if op is None and (comment := re.match(r"[^\n#]{0,20}#[^\n]*?\b((?:under|below|less than|within|at most|no more "
                                                r"than|inside))\s+(?:this|that|it)\b", text[m.end():])):
            op = _op_before(comment.group(1))
        if op is None and re.search(r"\b(?:limit|cap|ceiling|budget)\s*(?:is|of|:|=)?\s*$", clause):
            op = "<="  # 'Time limit: 8 minutes'
        # ('it can run for an hour tops', 'the job may take 20 minutes at most': what the job may spend)
        given = re.search(r"\b(?:give|allow|grant|allot)\s+(?:it|the\s+(?:model|training|search|run|job))\s+"
                          r"(?:up\s+to\s+|about\s+|roughly\s+)?$|"
                          r"\b(?:it|the\s+(?:model|training|search|run|job|fit)|training|this)\s+(?:can|may|could|is allowed to|"
                          r"gets? to)\s+(?:run|train|take|spend|go)\s+(?:for\s+)?(?:up\s+to\s+|about\s+|roughly\s+)?$|"
                          # ('I can wait half an hour': what the user waits for is the run)
                          r"\b(?:i|we)\s+(?:can|could|will|would|am willing to|are willing to)\s+wait\s+(?:for\s+)?"
                          r"(?:up\s+to\s+|about\s+|roughly\s+)?$",
                          clause)
        if op is None and given:
            op = "<="  # 'give it ten minutes': what it is given is what it may take
        # this sentence's words only: 'Predict the price. Give it ten minutes' asks no prediction in ten minutes;
        # and for minutes or longer its clause only: 'a quick forecast of X, MAE at most 10, 2 mins tops' limits the
        # training (an answer waited for minutes is said where the wait is: 'each forecast within 2 minutes')
        window = re.split(r"[.;!?](?:\s|$)", before)[-1] + re.split(r"[.;,]", text[m.end():m.end() + 30])[0]
        if _TIME_UNITS[unit] >= 60_000.0:
            window = clause + re.split(r"[.;,]", text[m.end():m.end() + 30])[0]
        # 'three minutes of training at most', 'a 10-minute budget', 'a 5-minute training cap', '10 min budget'
        # ('an hour max for training', '20 minutes at most for the search')
        of_training = re.match(rf"\s+(?:(?:max|maximum|tops|at (?:the )?(?:very )?most|or less)\s+)?(?:of|for)\s+(?:the\s+)?"
                               rf"(?:{_TRAINING_WORDS})\b(?!\s+(?:data|set|rows|examples|samples|window|period)\b)",
                               text[m.end():]) or (
            unit not in _SHORT_UNITS
            and not re.search(rf"\b(?:{_LATENCY_WORDS})", window)
            and re.match(rf"\s+(?:(?:{_TRAINING_WORDS})\s+)?(?:budget|limit|cap)\b", text[m.end():]))
        # 'just keep it to half an hour', 'keep the run under 2 hours': what the whole job is held to
        kept_to = re.search(r"\b(?:keep|hold|limit|cap)\s+(?:it|this|things|everything|the\s+(?:training|run|search|job|"
                            r"whole thing|fit|fitting))\s+(?:to|at|under|below|within|inside)\s+(?:about\s+|roughly\s+)?$",
                            clause)
        # ('give it 0.5 hour at the very most': what it is given, in hours too)
        if (kept_to or given) and not re.search(rf"\b(?:{_LATENCY_WORDS})", window):
            op = op or "<="
            name, target = "training_time_s", value * _TIME_UNITS[unit] / 1000.0
        elif of_training:  # 'three minutes of training at most', 'give it ten minutes of search'
            op = _op_after(text[m.end() + of_training.end():][:16]) or op or "<="
            name, target = "training_time_s", value * _TIME_UNITS[unit] / 1000.0
        elif re.search(rf"\b(?:{_TRAINING_WORDS})", clause) and not (
                unit in _SHORT_UNITS and re.search(rf"\b(?:{_LATENCY_WORDS})", clause)):
            # 'a single forecast call has to finish in under 5 ms': a call that finishes in milliseconds is served
            name, target = "training_time_s", value * _TIME_UNITS[unit] / 1000.0
        elif unit in _SHORT_UNITS or re.search(rf"\b(?:{_LATENCY_WORDS})", window):
            if unit in {"h", "hour", "hours"} or (op is None and not re.search(rf"\b(?:{_LATENCY_WORDS})", window)):
                continue
            name, target = "latency_ms", value * _TIME_UNITS[unit]
        elif op is not None and unit not in {"h", "hour", "hours"}:
            name, target = "training_time_s", value * _TIME_UNITS[unit] / 1000.0
        else:
            continue
        if text[m.end(1):m.start(2)] == "-" and not re.match(r"\s+(?:[\w-]+\s+)?(?:budget|limit|cap)\b", text[m.end():]):
            continue  # 'the next three five-minute intervals': a length said of something, not a limit
        out.setdefault(name, Constraint(name=name, op=op or "<=", target=round(target, 6), kind="complexity",
                                        phrase=(clause[-40:] + m.group(0)).strip()))
    size_units = "|".join(sorted((re.escape(u) for u in _SIZE_UNITS), key=len, reverse=True))
    for m in _quantities(text, size_units):
        before = re.split(r"[.;]|\band\b|,", text[max(0, m.start() - 60):m.start()])[-1]
        if _negated_before(text, m.start()):
            continue
        op = _op_after(text[m.end():m.end() + 16]) or _op_before(before)
        if op is None and not re.search(r"\b(?:size|model|file|weigh|footprint|disk|memory|mem|ram)\b", before):
            continue
        target = round(float(m.group(1)) * _SIZE_UNITS[m.group(2)], 8)
        after = re.split(r"[.;,(]|\band\b", text[m.end():m.end() + 30])[0]
        # 'at most 200 MB of memory', 'RAM under 2 GB': what the training may hold, not what the model weighs
        # ('the model must not use more than 512 MB of memory': what it uses, not what it weighs; 'the model's size in
        # memory' is its size)
        near = before[-30:] + " " + after
        held = re.search(r"\b(?:memory|mem|ram|rss)\b", near) and not re.search(
            r"\b(?:file|disk|saved|weigh\w*|pickle|artifact|size)\b", near) and not (
            re.search(r"\bmodel\b", before[-30:]) and not re.match(r"\s*(?:of\s+)?(?:memory|ram)\b", after))
        name = "peak_memory_mb" if held else "model_size_mb"
        if held and m.group(2) in ("gb", "gigabyte", "gigabytes"):  # memory is counted in binary units: 1 GB of RAM
            target = round(float(m.group(1)) * 1024.0, 8)          # is 1024 MB (a file's 1 GB stays 1000 MB)
        out.setdefault(name, Constraint(name=name, op=op or "<=", target=target, kind="complexity",
                                        phrase=(before[-40:] + m.group(0) + (after if held else "")).strip()))
    for m in re.finditer(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(k|thousand|m|million|mn|b|billion)?\s*(?:trainable\s+)?"
                         r"(?:param(?:eter)?s?|weights)\b", text):
        before = re.split(r"[.;]|\band\b|,", text[max(0, m.start() - 60):m.start()])[-1]
        op = _op_after(text[m.end():m.end() + 16]) or _op_before(before) or "<="
        target = float(m.group(1)) * _COUNT_UNITS[m.group(2) or ""]
        out.setdefault("n_parameters", Constraint(name="n_parameters", op=op, target=target, kind="complexity",
                                                  phrase=(before[-40:] + m.group(0)).strip()))
    return list(out.values())


def parse_constraints(instruction: str) -> list[Constraint]:
    return parse_performance(instruction) + parse_complexity(instruction)


def _unsupported_spans(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), name) for alias, name in metrics.UNSUPPORTED.items()
            for m in re.finditer(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", text)]


def unsupported_metric(instruction: str, columns: tuple[str, ...] = ()) -> str | None:
    """A measure the instruction asks for that automl-agent has not ('log loss', 'balanced accuracy'), or None. A word
    that is also a column's name ('kappa plus lambda' in a table with a kappa column) names the column."""
    text = instruction.lower()
    names = {c.lower() for c in columns}
    found = [(start, name) for start, end, name in _unsupported_spans(text)
             if not _negated_before(text, start) and text[start:end] not in names]
    return min(found)[1] if found else None


# 'accuracy is meaningless here', 'accuracy would be misleading': a measure named to be set aside
_DISMISSED = (r"\s*(?:is|are|would be|will be|'s|seems?)\s+(?:\w+\s+)?(?:meaningless|misleading|useless|pointless|"
              r"irrelevant|worthless|deceptive|no good|not (?:useful|helpful|meaningful|informative|what))\b")


def mentioned_metric(instruction: str, task: TaskType, columns: tuple[str, ...] = ()) -> str | None:
    """The first metric the instruction names that fits the task (with or without a number); a name inside an
    unsupported one ('accuracy' in 'balanced accuracy') is not it, nor is a column's name ('r1 through r10' in a
    table with columns r1 ... r10 names no R squared)."""
    text = instruction.lower()
    allowed = metrics.TASK_METRICS.get(task, set())
    inside = _unsupported_spans(text)
    names = {c.lower() for c in columns}
    best: tuple[int, str] | None = None
    for alias, name in metrics.ALIASES.items():
        if name not in allowed or alias in names:
            continue
        for m in re.finditer(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", text):
            if any(a <= m.start() and m.end() <= b for a, b, _ in inside):
                continue
            after = text[m.end():m.end() + 30]
            if _negated_before(text, m.start()) or re.match(r"\s*(?:is|are)\s*(?:not|n't)\b|\s*isn't\b|\s*doesn't", after) \
                    or re.match(_DISMISSED, after):
                continue
            if best is None or m.start() < best[0]:
                best = (m.start(), name)
            break
    return best[1] if best else None


def requested_clusters(instruction: str) -> int | None:
    m = re.search(r"\b(?:into|in|with|find|exactly)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten)\s+(?:clusters|groups|segments|segment|cluster)", instruction.lower())
    if not m:
        return None
    words = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
    return int(words.get(m.group(1), m.group(1)))


def percent_points(constraints: list[Constraint], profile: DataProfile | None, target: str | None) -> list[Constraint]:
    """'an RMSE below three percent' of a water percentage (60.5, 46.0, 71.0): an error in the target's own points,
    3, not 0.03; on a target between 0 and 1 a percent stays a share."""
    column = next((c for c in profile.columns if c.name == target and c.kind == "numeric"), None) if profile is not None else None
    try:
        values = [abs(float(v)) for v in column.examples] if column is not None else []
    except ValueError:
        values = []
    if not values or not 1.5 < max(values) <= 100:
        return constraints
    return [c.model_copy(update={"target": round(c.target * 100, 10)})
            if c.name in {"rmse", "mae"} and re.search(r"\d\s*(?:%|percent\b|per cent\b)", c.phrase) else c
            for c in constraints]


def reconcile(parsed: list[Constraint], instruction: str, profile: DataProfile | None = None,
              target: str | None = None) -> tuple[list[Constraint], list[str]]:
    """Keep the brain's constraints only where the instruction backs them; add what the brain missed.

    Returns the reconciled list and a note per correction, so the record shows what was overridden.
    """
    truth = {c.name: c for c in percent_points(parse_constraints(instruction), profile, target)}
    notes: list[str] = []
    result: dict[str, Constraint] = {}
    for c in parsed:
        if c.name not in metrics.MEASURES:
            notes.append(f"dropped constraint on unknown measure {c.name!r}")
            continue
        real = truth.get(c.name)
        if real is None:
            notes.append(f"dropped {c.describe()}: the instruction states no such constraint")
            continue
        if (real.op, real.target) != (c.op, c.target):
            notes.append(f"corrected {c.describe()} to {real.describe()} (the instruction says: {real.phrase!r})")
        result[c.name] = real
    for name, real in truth.items():
        if name not in result:
            notes.append(f"added {real.describe()} from the instruction ({real.phrase!r})")
            result[name] = real
    return list(result.values()), notes
