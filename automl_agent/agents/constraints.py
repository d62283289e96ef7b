"""Deterministic reading of constraints and hints from an instruction.

Whatever a brain answers, the numbers users wrote are read here too and win: a constraint number must equal
what the instruction says (cross-check), and the metric direction follows the metric.
"""

from __future__ import annotations

import re

from . import metrics
from .contracts import Constraint, TaskType

_NUMBER = r"(\d+(?:[.,]\d+)?)\s*(%|percent)?"
_AT_LEAST = r"(?:at least|no less than|not less than|minimum(?: of)?|min\.?|>=|≥|>|above|over|greater than|more than|higher than|exceed(?:s|ing)?|of at least|reach(?:es)?|achieves?)"
_AT_MOST = r"(?:at most|no more than|not more than|maximum(?: of)?|max\.?|<=|≤|<|under|below|less than|lower than|within|not exceed(?:ing)?|smaller than|fewer than)"
_GAP = r"[^.;\d]{0,40}?"


def _number(text: str, percent: str | None) -> float:
    value = float(text.replace(",", "."))
    return value / 100.0 if percent else value


def _metric_pattern() -> str:
    names = sorted(metrics.ALIASES, key=len, reverse=True)
    return "|".join(re.escape(n) for n in names)


def _bounded(phrase: str) -> tuple[str, str] | None:
    # negated forms first: "no more than" contains "more than", "not less than" contains "less than"
    if re.search(r"no[t]? (?:more|greater|higher|larger) than|not? exceed", phrase):
        return "<=", phrase
    if re.search(r"no[t]? (?:less|fewer|lower|smaller) than", phrase):
        return ">=", phrase
    if re.search(_AT_LEAST, phrase):
        return ">=", phrase
    if re.search(_AT_MOST, phrase):
        return "<=", phrase
    return None


def parse_performance(instruction: str) -> list[Constraint]:
    text = instruction.lower()
    found: dict[str, Constraint] = {}
    pattern = rf"(?<![\w-])({_metric_pattern()})(?![\w-])({_GAP}){_NUMBER}(\s*(?:or (?:more|higher|better|above|greater|less|lower|below|fewer))?)"
    for match in re.finditer(pattern, text):
        alias, between, number, percent, after = match.groups()
        name = metrics.ALIASES[alias]
        bound = _bounded(between)
        if after.strip():
            bound = (">=", after) if re.search(r"more|higher|better|above|greater", after) else ("<=", after)
        if bound is None:
            # "an F1 of 0.6" with no bound word: a performance target means "at least" for scores, "at most" for losses
            if not re.search(r"(\bof\b|=|:|\bis\b|\bbe\b|\btarget\b)", between):
                continue
            op = ">=" if metrics.direction(name) == "maximize" else "<="
        else:
            op = bound[0]
        value = _number(number, percent)
        if name in {"accuracy", "f1", "precision", "recall", "roc_auc", "r2", "rand_index", "adjusted_rand_index"} and value > 1:
            value = value / 100.0
        found.setdefault(name, Constraint(name=name, op=op, target=value, kind="performance", phrase=match.group(0).strip()))
    return list(found.values())


_TIME_UNITS = {"ms": 1.0, "millisecond": 1.0, "milliseconds": 1.0, "msec": 1.0,
               "s": 1000.0, "sec": 1000.0, "second": 1000.0, "seconds": 1000.0,
               "us": 0.001, "µs": 0.001, "microsecond": 0.001, "microseconds": 0.001}
_SIZE_UNITS = {"kb": 1 / 1024, "mb": 1.0, "gb": 1024.0, "kib": 1 / 1024, "mib": 1.0, "gib": 1024.0,
               "megabytes": 1.0, "kilobytes": 1 / 1024, "gigabytes": 1024.0}
_COUNT_UNITS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "b": 1e9, "billion": 1e9, "": 1.0}


def parse_complexity(instruction: str) -> list[Constraint]:
    text = instruction.lower()
    out: list[Constraint] = []
    latency_words = r"(?:latency|inference time|prediction time|predict(?:ion)?s?|inference|respond|response time|answer)"
    latency = re.search(
        rf"{latency_words}[^.;]{{0,60}}?{_AT_MOST}\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|msec|s|sec|seconds?|us|µs|microseconds?)\b",
        text,
    ) or re.search(
        rf"{_AT_MOST}\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|msec|us|µs|microseconds?)\b[^.;]{{0,40}}?(?:per|for each|each|a|one)\s+(?:prediction|sample|record|row|request|inference|image|text|review|message|document|item|forecast|node|query|call)",
        text,
    )
    if latency:
        value, unit = latency.group(1), latency.group(2)
        out.append(Constraint(name="latency_ms", op="<=", target=float(value) * _TIME_UNITS[unit], kind="complexity",
                              phrase=latency.group(0).strip()))
    size = re.search(rf"(?:model size|size of the model|model file|model must be|model should be|size)[^.;]{{0,40}}?{_AT_MOST}\s*(\d+(?:\.\d+)?)\s*(kb|mb|gb|kib|mib|gib|megabytes|kilobytes|gigabytes)\b", text) \
        or re.search(rf"{_AT_MOST}\s*(\d+(?:\.\d+)?)\s*(kb|mb|gb|kib|mib|gib|megabytes|kilobytes|gigabytes)\b", text)
    if size:
        out.append(Constraint(name="model_size_mb", op="<=", target=round(float(size.group(1)) * _SIZE_UNITS[size.group(2)], 6),
                              kind="complexity", phrase=size.group(0).strip()))
    params = re.search(rf"{_AT_MOST}\s*(\d+(?:\.\d+)?)\s*(k|thousand|m|million|b|billion)?\s*(?:trainable\s+)?param(?:eter)?s?\b", text)
    if params:
        out.append(Constraint(name="n_parameters", op="<=", target=float(params.group(1)) * _COUNT_UNITS[params.group(2) or ""],
                              kind="complexity", phrase=params.group(0).strip()))
    train = re.search(rf"(?:train(?:ing)?(?: time)?|fit)[^.;]{{0,40}}?{_AT_MOST}\s*(\d+(?:\.\d+)?)\s*(s|sec|seconds?|min|minutes?)\b", text)
    if train:
        factor = 60.0 if train.group(2).startswith("min") else 1.0
        out.append(Constraint(name="training_time_s", op="<=", target=float(train.group(1)) * factor, kind="complexity",
                              phrase=train.group(0).strip()))
    return out


def parse_constraints(instruction: str) -> list[Constraint]:
    return parse_performance(instruction) + parse_complexity(instruction)


def mentioned_metric(instruction: str, task: TaskType) -> str | None:
    """The first metric the instruction names that fits the task (with or without a number)."""
    text = instruction.lower()
    allowed = metrics.TASK_METRICS.get(task, set())
    best: tuple[int, str] | None = None
    for alias, name in metrics.ALIASES.items():
        if name not in allowed:
            continue
        m = re.search(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return best[1] if best else None


_WINDOW_UNITS = r"(?:steps?|points?|hours?|half[- ]hours?|days?|weeks?|months?|minutes?|values?|observations?|periods?|time steps?)"


def requested_windows(instruction: str) -> tuple[int | None, int | None]:
    """(input length, forecast horizon) from INPUT_SEQ_LEN=96 / PRED_SEQ_LEN=24, or 'from the last 96 hours' /
    'the next 24 hours'; None where the instruction does not say."""
    text = instruction.lower()
    m_in = re.search(r"input_seq_len\s*[=:]\s*(\d+)", text) or re.search(
        rf"(?:last|past|previous|preceding)\s+(\d+)(?:\s+{_WINDOW_UNITS})?", text)
    m_out = re.search(r"pred_seq_len\s*[=:]\s*(\d+)", text) or re.search(
        rf"(?:next|following|coming|ahead)\s+(\d+)\s+{_WINDOW_UNITS}", text) or re.search(
        rf"(\d+)\s+{_WINDOW_UNITS}\s+ahead", text)
    return (int(m_in.group(1)) if m_in else None), (int(m_out.group(1)) if m_out else None)


def requested_clusters(instruction: str) -> int | None:
    m = re.search(r"\b(?:into|in|with|find|exactly)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten)\s+(?:clusters|groups|segments|segment|cluster)", instruction.lower())
    if not m:
        return None
    words = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
    return int(words.get(m.group(1), m.group(1)))


def reconcile(parsed: list[Constraint], instruction: str) -> tuple[list[Constraint], list[str]]:
    """Keep the brain's constraints only where the instruction backs them; add what the brain missed.

    Returns the reconciled list and a note per correction, so the record shows what was overridden.
    """
    truth = {c.name: c for c in parse_constraints(instruction)}
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
