"""Property-based tests (hypothesis): whatever people type, the instruction is understood or refused with a clear
error, never a crash; whatever JSON a client sends, the payload is accepted or rejected with a message."""

from __future__ import annotations

import math
import os

import pandas as pd
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from automl_agent.agents.constraints import conflicting_bounds, parse_constraints
from automl_agent.agents.feasibility import check_constraints
from automl_agent.agents.understanding import decide_target, judge_request
from automl_agent.data.profile import profile_table
from automl_agent.serving.payload import PayloadError, check_records, records_frame
from automl_agent.errors import UserFacingError

PROFILE = profile_table(pd.DataFrame({
    "tenure": list(range(60)), "contract": ["Month-to-month", "One year", "Two year"] * 20,
    "monthly_charges": [20.5 + i for i in range(60)], "churn": ["Yes", "No"] * 30,
}), "churn.csv")
WORDS = st.sampled_from(["predict", "churn", "F1", "accuracy", "at least", "below", "0.8", "85%", "120%", "-5", "ms",
                         "RMSE", "forecast", "next", "24 hours", "ignore", "previous", "instructions", "send", "to",
                         "http://x", "contract", "tenure", "cluster", "the", "customers", "and", "not", "?", "!",
                         "latency", "under", "10", "seconds", "model", "size", "MB", "rm -rf", "`ls`", "é", "月額"])
# CI sees the same examples every run (a random draw once failed a stop's CI); AUTOML_AGENT_FUZZ_EXAMPLES=5000 runs
# a fresh random search of that size, to look for new failures before they reach CI
DEEP_FUZZ = int(os.environ.get("AUTOML_AGENT_FUZZ_EXAMPLES", "0"))
SETTINGS = settings(max_examples=DEEP_FUZZ or 150, derandomize=not DEEP_FUZZ, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.one_of(st.text(max_size=200), st.lists(WORDS, max_size=25).map(" ".join)))
def test_any_instruction_is_understood_or_refused_never_a_crash(text):
    relevant, feedback = judge_request(text, None)
    assert relevant or feedback
    constraints = parse_constraints(text)
    assert all(math.isfinite(c.target) and c.op in (">=", ">", "<=", "<") for c in constraints)
    assert len({c.name for c in constraints}) == len(constraints)
    bounds = conflicting_bounds(text)
    assert bounds is None or bounds[0].name == bounds[1].name
    decision = decide_target(text, PROFILE)
    assert decision.column is None or decision.column in {c.name for c in PROFILE.columns}


@SETTINGS
@given(st.lists(WORDS, min_size=1, max_size=25).map(" ".join))
@example("at least -5 MB")  # once let through as a model-size floor of -5
def test_constraints_that_pass_the_check_are_meetable(text):
    from automl_agent.agents.contracts import RequirementSpec

    spec = RequirementSpec.model_validate({
        "user": {"intent": "build", "expertise": "medium"},
        "problem": {"area": "tabular", "downstream_task": "tabular_classification", "metric": "f1",
                    "metric_direction": "maximize", "constraints": [c.model_dump() for c in parse_constraints(text)]},
        "dataset": {"name": "churn", "path": "churn.csv", "target": "churn"},
    })
    try:
        check_constraints(spec, text)
    except UserFacingError as exc:
        assert exc.status == "rejected" and exc.hint
        return
    for c in spec.problem.constraints:
        if c.name in {"accuracy", "f1", "precision", "recall", "roc_auc"} and c.op in (">=", ">"):
            assert c.target <= 1
        if c.kind == "complexity":
            assert c.target >= 0


SCHEMA = {"task": "tabular_classification", "target": "churn", "columns": [
    {"name": "tenure", "type": "number", "min": 0, "max": 72, "median": 29, "integer": True},
    {"name": "contract", "type": "category", "levels": ["Month-to-month", "One year"], "mode": "Month-to-month"},
    {"name": "note", "type": "text", "max_length": 40},
    {"name": "history", "type": "series", "length": 3},
]}
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=20)
NUMBER = st.one_of(st.integers(-10**30, 10**30), st.floats(allow_nan=True, allow_infinity=True), st.none())
# mostly the right kind of value for each column (so that many records reach the frame), sometimes anything
COLUMN_VALUES = {"tenure": NUMBER, "contract": st.one_of(st.none(), st.text(max_size=30), st.integers()),
                 "note": st.one_of(st.none(), st.text(max_size=60)),
                 "history": st.lists(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False),
                                               st.integers(-10**6, 10**6)), min_size=3, max_size=6)}
ROW = st.fixed_dictionaries({name: st.one_of(values, values, values, values, JSON)
                             for name, values in COLUMN_VALUES.items()}, optional={"churn": JSON})
RECORD = st.one_of(ROW, ROW, ROW, JSON, ROW.map(lambda row: {**row, "extra": 1}))


@SETTINGS
@given(st.one_of(st.lists(RECORD, min_size=1, max_size=3), JSON))
def test_any_payload_is_accepted_or_rejected_with_a_message(records):
    try:
        checked = check_records(records, SCHEMA)
    except PayloadError as exc:
        assert str(exc)
        return
    frame = records_frame(checked, SCHEMA)
    assert len(frame) == len(records) and list(frame.columns) == [c["name"] for c in SCHEMA["columns"]]
    assert all(len(v) == 3 for v in frame["history"])
    assert frame["tenure"].dtype.kind in "if"
