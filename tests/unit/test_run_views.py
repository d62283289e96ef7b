"""`runs` filters and `show` in readable form, on records as runs write them."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from automl_agent.errors import UserFacingError
from automl_agent.cli.run_views import describe_run, parse_since, runs_table, select
from automl_agent.workspace import ConstraintRecord, PlanRecord, RegisteredModel, RunRecord


def _record(run_id: str, status: str, task: str | None, created: str, **extra) -> RunRecord:
    return RunRecord(run_id=run_id, status=status, instruction="Predict churn; F1 at least 0.6", data_path="churn.csv",
                     task_type=task, created_at=created, **extra)


RECORDS = [
    _record("a", "succeeded", "tabular_classification", "2026-11-01T10:00:00+00:00", target="churn", metric="f1",
            metrics={"f1": 0.634}, best_model="lightgbm", chosen_plan="Boosting",
            plans=[PlanRecord(plan_id=1, title="Boosting", rationale="", model_families=["lightgbm"]),
                   PlanRecord(plan_id=2, title="Linear", rationale="", model_families=["logistic_regression"])],
            constraints=[ConstraintRecord(name="f1", op=">=", target=0.6, measured=0.634, satisfied=True)],
            registered_model=RegisteredModel(name="churn-tabular", version="3", alias="champion"),
            target_reason="the instruction says 'churn'"),
    _record("b", "failed", "time_series_forecasting", "2026-11-20T10:00:00+00:00"),
    _record("c", "planned", "tabular_regression", "2026-11-21T10:00:00+00:00",
            constraints=[ConstraintRecord(name="latency_ms", op="<", target=5.0)]),
]


def test_filters_combine():
    assert [r.run_id for r in select(RECORDS, status="succeeded")] == ["a"]
    assert [r.run_id for r in select(RECORDS, task="forecast")] == ["b"]
    since = datetime(2026, 11, 15, tzinfo=timezone.utc)
    assert [r.run_id for r in select(RECORDS, task="tabular", since=since)] == ["c"]


def test_since_reads_dates_and_spans_and_explains_what_it_cannot_read():
    assert parse_since("2026-11-15") == datetime(2026, 11, 15, tzinfo=timezone.utc)
    assert round((datetime.now(timezone.utc) - parse_since("3d")).total_seconds() / 3600) == 72
    with pytest.raises(UserFacingError, match="not a date"):
        parse_since("last tuesday")


def test_the_table_shows_the_metric_value_and_show_reads_like_a_report():
    table = runs_table(RECORDS)
    assert "f1=0.6340" in table and table.splitlines()[0].startswith("run")
    text = describe_run(RECORDS[0])
    assert "target:       'churn' (the instruction says 'churn')" in text
    assert "f1 >= 0.6: measured 0.634 (met)" in text and "1. Boosting [lightgbm]  <- chosen" in text
    assert "models:/churn-tabular/3 (@champion when registered" in text
    planned = describe_run(RECORDS[2])
    assert "latency_ms < 5" in planned and "measured" not in planned and "success score" not in planned
    assert "inputs:       every usable column\n" in text


def test_show_says_which_columns_the_model_may_use():
    limited = _record("d", "planned", "tabular_classification", "2026-11-22T10:00:00+00:00", target="Flight",
                      inputs=["Altitude", "Lateral"], left_out=["FlockID"])
    assert "inputs:       only Altitude, Lateral" in describe_run(limited)
    left = _record("e", "planned", "tabular_classification", "2026-11-22T10:00:00+00:00", target="abortion",
                   left_out=["id", "weight"])
    assert "inputs:       every usable column but id, weight" in describe_run(left)
