"""The instruction reader on the cases of tests/unit/reader_cases/*.yaml, one test a case.

Each file holds a class of sentences found by the blind batches (its `why:` says what), the synthetic tables they
are read over, and the cases. A table is declared column by column: a `seed` for its numpy generator, `n` rows, and
each column an expression evaluated in order over the draws of that generator (`integers(18, 70)` is
`rng.integers(18, 70, n)`), `np`, `pd`, `n`, `frame()` (the columns so far) and the columns before it; a name that
begins with `_` is drawn but not written, a key `for x, y in ...` repeats its columns, and `after: other` goes on with
the generator and names of another table of the file. A case reads its `text` (a list: one test each) over a `table`
of its file or a `data` source and checks `expect`; a case with `call:` checks one function of the reader instead
(CALLS below: what each gives). `expect` maps a field of what was got to what it must be (see `_holds`).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from automl_agent.agents import metrics
from automl_agent.agents.brains.base import RecordingBrain, Transcript
from automl_agent.agents.brains.factory import make_brain
from automl_agent.agents.brains.offline import understood_target
from automl_agent.agents.constraints import data_unit, mentioned_metric, parse_constraints
from automl_agent.agents.contracts import RequirementSpec, TaskType
from automl_agent.agents.feasibility import check_series
from automl_agent.agents.operation_agent import training_budget_s
from automl_agent.agents.understanding import decide_target, language, transforms
from automl_agent.agents.understanding.features import decide_features
from automl_agent.agents.understanding.request import asks_for_something_else
from automl_agent.agents.understanding.windows import requested_windows
from automl_agent.agents.understanding.words import (
    abbreviates_phrase,
    abbreviates_with_a_word_unsaid,
    compact,
    normalise,
    numbers_to_digits,
    tokens,
)
from automl_agent.benchmark.understanding import profile_of, read_table, score, understand
from automl_agent.data.profile import profile_table
from automl_agent.trainkit import times
from automl_agent.trainkit.runtime import ordered_series

CASE_FILES = sorted(Path(__file__).with_name("reader_cases").glob("*.yaml"))
MISSING = object()


class _Loader(yaml.SafeLoader):
    """YAML where only true and false are booleans (yes, no, on, off stay words), dates stay text, and a key said
    twice in one mapping is an error, not the last one silently."""

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(key, deep=True) for key, _ in node.value]
        twice = sorted({str(k) for k in keys if keys.count(k) > 1})
        if twice:
            raise yaml.constructor.ConstructorError(None, None, f"said twice: {twice}", node.start_mark)
        return super().construct_mapping(node, deep)


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag.rsplit(":", 1)[1] not in ("bool", "timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))


@cache
def _file(source: Path) -> dict:
    return yaml.load(source.read_text(encoding="utf-8"), _Loader)


# ---- tables


DRAWS = ("integers", "uniform", "normal", "choice", "poisson", "gamma", "lognormal", "random", "dirichlet")


def _draw(rng: np.random.Generator | None, method: str, n: int):
    def draw(*args, size=None, **kwargs):
        return getattr(rng, method)(*args, size=n if size is None else size, **kwargs)

    return draw


def _columns(spec: dict, rng: np.random.Generator | None, names: dict) -> tuple[dict, dict]:
    """The columns a table declares, evaluated in order, and every name they left (for a table `after:` it)."""
    n = spec["n"]
    columns: dict[str, Any] = {}
    scope = {**names, "np": np, "pd": pd, "n": n, "frame": lambda: pd.DataFrame(columns)}
    scope.update({method: _draw(rng, method, n) for method in DRAWS})

    def put(name: str, expression) -> None:
        scope[name] = eval(str(expression), scope)  # the case files are this suite's own data
        if not name.startswith("_"):
            columns[name] = scope[name]

    for key, expression in spec["columns"].items():
        loop = re.fullmatch(r"for (.+?) in (.+)", key)
        if not loop:
            put(key, expression)
            continue
        targets = [t.strip() for t in loop.group(1).split(",")]
        for item in eval(loop.group(2), scope):
            scope.update(zip(targets, item if len(targets) > 1 else [item]))
            for name, each in expression.items():
                put(name.format(**{t: scope[t] for t in targets}), each)
    return columns, {k: v for k, v in scope.items() if k not in DRAWS}


class Tables:
    """The declared tables, each built once a session and saved as <name>.csv (the name is the data's own)."""

    def __init__(self, factory: pytest.TempPathFactory):
        self.factory = factory
        self.built: dict[tuple[Path, str], tuple[str, np.random.Generator | None, dict]] = {}

    def _build(self, source: Path, name: str) -> tuple[str, np.random.Generator | None, dict]:
        if (source, name) not in self.built:
            spec = _file(source)["tables"][name]
            if "after" in spec:
                _, rng, names = self._build(source, spec["after"])
            else:
                rng, names = (np.random.default_rng(spec["seed"]) if "seed" in spec else None), {}
            columns, names = _columns(spec, rng, names)
            path = self.factory.mktemp(name) / f"{name}.csv"
            pd.DataFrame(columns).to_csv(path, index=False)
            self.built[source, name] = str(path), rng, names
        return self.built[source, name]

    def path(self, source: Path, name: str) -> str:
        return self._build(source, name)[0]


@pytest.fixture(scope="session")
def tables(tmp_path_factory) -> Tables:
    return Tables(tmp_path_factory)


# ---- what a case gets


def _data(case: dict, source: Path, tables: Tables) -> str:
    return tables.path(source, case["table"]) if "table" in case else case["data"]


def read(case: dict, source: Path, tables: Tables) -> dict:
    """What INIT makes of the sentence (the offline brain); `understood_target` is the target, or the column an
    ask names ('... of 'renewed'') when the run asks about something else."""
    frame, profile = read_table(_data(case, source, tables))
    got = understand(RecordingBrain(make_brain("offline"), Transcript()), case["text"], profile, None, frame)
    said = re.search(r"of '([^']+)'", got.get("message", "")) if got["outcome"] == "ask" else None
    return {**got, "understood_target": got.get("target") or (said and said.group(1))}


def _bounds(case: dict, *_) -> dict:
    text = case["text"]
    if "columns" in case:
        text = language.canonical(text, tuple(case["columns"])).text
    elif case.get("canonical"):
        text = language.canonical(text).text
    found = [c for c in parse_constraints(text) if c.name == case.get("name", c.name)]
    return {
        "bounds": [[c.name, c.op, c.target] for c in found],
        "pairs": [[c.name, c.target] for c in found],
        "names": [c.name for c in found],
        "targets": [c.target for c in found],
        "by_name": {c.name: [c.op, c.target] for c in found},
    }


def _canonical(case: dict, *_) -> dict:
    said = language.canonical(case["text"], tuple(case.get("columns", ())))
    return {"text": said.text, "lower": said.text.lower(), "rewrites": said.rewrites}


def _windows(case: dict, *_) -> dict:
    text = language.canonical(case["text"]).text if case.get("canonical") else case["text"]
    lookback, horizon = requested_windows(text, case["step"]) if "step" in case else requested_windows(text)
    return {"lookback": lookback, "horizon": horizon}


def _series(function):
    """A function of one column, given as `series` (an expression) named `name`; what it gives, and where that is a
    column of times or steps its values, days and months."""

    def call(case: dict, *_) -> dict:
        got = function(pd.Series(eval(str(case["series"]), {"np": np, "pd": pd}), name=case["name"]))
        if not isinstance(got, pd.Series):
            return {"value": got}
        dated = pd.api.types.is_datetime64_any_dtype(got)
        return {
            "value": got,
            "values": [str(v) for v in got] if dated else got.tolist(),
            "days": got.dt.strftime("%Y-%m-%d").tolist() if dated else None,
            "months": got.dt.strftime("%Y-%m").tolist() if dated else None,
            "duplicated": bool(got.duplicated().any()),
            "increasing": got.is_monotonic_increasing,
        }

    return call


def _profile(case: dict, source: Path, tables: Tables) -> dict:
    """A table's profile: of a `table` read back (with its path where `named`), a `data` source, or a `frame`
    (an expression) as it is in memory."""
    if "frame" in case:
        profile = profile_table(eval(case["frame"], {"np": np, "pd": pd}))
    elif "table" in case:
        path = tables.path(source, case["table"])
        profile = profile_table(pd.read_csv(path), path) if case.get("named") else profile_table(pd.read_csv(path))
    else:
        profile = profile_of(case["data"])
    return {
        "kinds": {c.name: c.kind for c in profile.columns},
        "kind_list": [c.kind for c in profile.columns],
        "time_step_s": profile.time_step_s,
    }


def _ordered(case: dict, source: Path, tables: Tables) -> dict:
    """The series a forecast reads, from the table's rows shuffled where `shuffle` gives a seed."""
    frame = pd.read_csv(tables.path(source, case["table"]))
    rows = frame.sample(frac=1, random_state=case["shuffle"]) if "shuffle" in case else frame
    values, steps = ordered_series(rows, case["time"], case["target"])
    same = len(values) == len(frame) and bool(np.allclose(values, frame[case["target"]].to_numpy()))
    steps = pd.Series(steps)
    return {
        "rows": len(values),
        "steps": steps.tolist(),
        "increasing": steps.is_monotonic_increasing,
        "unique": steps.is_unique,
        "same_values": same,
    }


def _value(function, *args: str):
    return lambda case, *_: {"value": function(*(case[a] for a in args))}


def _transform(case: dict, *_) -> dict:
    """The change that makes `text` from `plain`, by its name in automl_agent.agents.understanding.transforms."""
    got = transforms.transform_of(case["text"], case["plain"])
    names = [
        name for name in ("LOG", "GROWTH", "STANDARDIZED", "SEASONALLY_ADJUSTED") if got is getattr(transforms, name)
    ]
    return {"value": names[0] if names else got}


def _notes(case: dict, source: Path, tables: Tables) -> dict:
    """What check_series says of a `spec` (a RequirementSpec) over a table, its notes one a line."""
    spec = RequirementSpec.model_validate(case["spec"])
    return {"notes": "\n".join(check_series(spec, pd.read_csv(tables.path(source, case["table"])), case["text"]))}


def _score(case: dict, *_) -> dict:
    usable = [case["usable"]] if "usable" in case else []
    return {"understood": score(case["case"], case["got"], *usable).understood}


def _budget(case: dict, *_) -> dict:
    """The search's budget under `limits` (the constraints of a classification spec) and a `budget` of seconds."""
    problem = {"downstream_task": "tabular_classification", "metric": "f1", "constraints": case["limits"]}
    spec = RequirementSpec.model_validate({"problem": problem, "dataset": {"target": "churn"}})
    return {"value": training_budget_s(spec, case["budget"])}


def _data_names(case: dict, *_) -> dict:
    names = language.data_names(case["text"])
    return {"value": names, "type": type(names).__name__}


CALLS = {  # call: what it gives
    "constraints": _bounds,  # parse_constraints of the text (canonical first with `columns` or `canonical`)
    "canonical": _canonical,
    "windows": _windows,  # requested_windows of the text (with `step`; canonical first with `canonical`)
    "tokens": lambda case, *_: {"texts": [t.text for t in tokens(case["text"])]},
    "normalise": _value(normalise, "text"),
    "numbers_to_digits": _value(numbers_to_digits, "text"),
    "data_unit": _value(data_unit, "text"),
    "data_names": _data_names,
    "translate": _value(language._translate, "text", "lang"),
    "asks_for_something_else": _value(asks_for_something_else, "text"),
    "compact": _value(compact, "text"),
    "abbreviates_phrase": lambda case, *_: {"value": abbreviates_phrase(case["text"], case["words"].split())},
    "abbreviates_with_a_word_unsaid": lambda case, *_: {
        "value": abbreviates_with_a_word_unsaid(case["text"], *case["words"].split())
    },
    "transform_of": _transform,
    "asked": lambda case, *_: {"value": transforms.asked(getattr(transforms, case["transform"]), case["text"])},
    "mentioned_metric": lambda case, *_: {"value": mentioned_metric(case["text"].lower(), TaskType[case["task"]])},
    "metric": lambda case, *_: {"kind": metrics.kind(case["text"]), "direction": metrics.direction(case["text"])},
    "decide_target": lambda case, *_: vars(decide_target(case["text"], profile_of(case["data"]))),
    "decide_features": lambda case, *_: vars(decide_features(case["text"], profile_of(case["data"]), case["target"])),
    "understood_target": lambda case, *_: vars(understood_target(case["text"], profile_of(case["data"]))),
    "profile": _profile,
    "ordered_series": _ordered,
    "check_series": _notes,
    "score": _score,
    "training_budget_s": _budget,
}
SERIES_CALLS = (  # functions of automl_agent.trainkit.times over one column
    "decimal_year_frequency",
    "steps_per_unit",
    "step_counter",
    "compact_dates",
    "year_period_dates",
    "coded_dates",
    "as_times",
)
CALLS.update((name, _series(getattr(times, name))) for name in SERIES_CALLS)
ARGUMENTS = set(
    "text columns canonical name step words lang plain transform task data table frame named shuffle time target "
    "spec case got usable limits budget series".split()
)


# ---- what it must be


def _plain(value):
    """Tuples as lists, all the way down: what Python gives, as YAML writes it."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _frozen(value):
    """Lists as tuples, all the way down: what a set can hold."""
    return tuple(_frozen(v) for v in value) if isinstance(value, (list, tuple)) else value


def _at(got: dict, path: str):
    """`key`, `key?` (a key that may be absent: None then, as dict.get), then any `[i]`, `[:k]` or `[name]`."""
    key, optional, rest = re.fullmatch(r"(\w+)(\?)?((?:\[[^\]]+\])*)", path).groups()
    value = got.get(key, None if optional else MISSING)
    for part in re.findall(r"\[([^\]]+)\]", rest):
        if value is MISSING:
            break
        try:
            if re.fullmatch(r"-?\d*:-?\d*", part):
                value = value[slice(*(int(p) if p else None for p in part.split(":")))]
            else:
                value = value[int(part) if re.fullmatch(r"-?\d+", part) else part]
        except (IndexError, KeyError, TypeError):
            value = MISSING
    return value


OPS = {  # got, wanted -> whether it holds (an absent field holds none but `not` and `lacks` on a `key?`)
    "is": lambda got, wanted: got is wanted,
    "not": lambda got, wanted: got != wanted,
    "truthy": lambda got, wanted: bool(got) is wanted,
    "sorted": lambda got, wanted: sorted(got or []) == wanted,
    "set": lambda got, wanted: set(map(_frozen, got or [])) == set(map(_frozen, wanted)),
    "has": lambda got, wanted: set(map(_frozen, wanted)) <= set(map(_frozen, got or [])),
    "within": lambda got, wanted: set(map(_frozen, got or [])) <= set(map(_frozen, wanted)),
    "contains": lambda got, wanted: (
        _frozen(wanted) in ([_frozen(g) for g in got] if isinstance(got, list) else got or [])
    ),
    "says": lambda got, wanted: all(w in got for w in wanted),
    "lacks": lambda got, wanted: wanted not in (got or []),
    "one_of": lambda got, wanted: _plain(got) in wanted,
    "startswith": lambda got, wanted: got.startswith(wanted),
    "endswith": lambda got, wanted: got.endswith(wanted),
    "between": lambda got, wanted: (wanted[0] is None or wanted[0] < got) and (wanted[1] is None or got < wanted[1]),
    "approx": lambda got, wanted: got == pytest.approx(wanted),
}


def _holds(got: dict, expect: dict) -> list[str]:
    """What of `expect` does not hold: each key a field of `got` (see `_at`), each value what it must equal, or a
    mapping of OPS that must all hold; `any:` a list of such expectations of which one must hold whole."""
    failed = []
    for path, wanted in expect.items():
        if path == "any":
            if all(_holds(got, each) for each in wanted):
                failed.append(f"none of {wanted}")
            continue
        value = _at(got, path)
        checks = wanted.items() if isinstance(wanted, dict) and wanted and set(wanted) <= set(OPS) else [("eq", wanted)]
        for op, operand in checks:
            if value is MISSING:
                ok = False
            elif op == "eq":
                ok = _plain(value) == operand
            else:
                ok = OPS[op](value, operand)
            if not ok:
                failed.append(f"{path}: {op} {operand!r}, got {value if value is not MISSING else '(absent)'!r}")
    return failed


# ---- the cases


def _cases():
    """Each case of each file; a case with `each:` (or a list of texts) is one case an item, the item's keys over
    the case's and its `expect` over the case's."""
    for source in CASE_FILES:
        spec = _file(source)
        assert set(spec) <= {"why", "tables", "cases"} and spec.get("why"), source.name
        for table in spec.get("tables", {}).values():
            assert set(table) <= {"about", "seed", "after", "n", "columns"}, (source.name, table)
        for name, case in spec["cases"].items():
            texts = case["text"] if isinstance(case.get("text"), list) else None
            assert not (texts and "each" in case), (source.name, name)
            each = [{"text": t} for t in texts] if texts else case.get("each")
            base = {k: v for k, v in case.items() if k != "each"}
            for i, item in enumerate(each or [{}]):
                merged = {**base, **item, "expect": {**base.get("expect", {}), **item.get("expect", {})}}
                assert not set(merged) - ARGUMENTS - {"call", "expect"}, (source.name, name, merged)
                assert merged.get("call", "read") in CALLS or merged.get("call", "read") == "read", (source.name, name)
                assert "table" not in merged or merged["table"] in spec.get("tables", {}), (source.name, name)
                assert merged["expect"], (source.name, name)
                yield pytest.param(source, merged, id=f"{source.stem}/{name}" + (f"-{i}" if each else ""))


@pytest.mark.parametrize(("source", "case"), list(_cases()))
def test_reader_case(tables, source, case):
    call = case.get("call")
    got = CALLS[call](case, source, tables) if call else read(case, source, tables)
    failed = _holds(got, case["expect"])
    assert not failed, (failed, got)
