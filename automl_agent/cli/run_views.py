"""Runs as people read them: the `runs` table with its filters, and `show RUN_ID` in readable form."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from ..errors import UserFacingError
from ..workspace import RunRecord, describe_inputs

STATUSES = ("running", "planned", "succeeded", "failed", "rejected", "interrupted")


def parse_since(text: str | None) -> datetime | None:
    """'2026-11-01', '2026-11-01T08:00' or a relative '3d' / '12h'."""
    if not text:
        return None
    text = text.strip()
    now = datetime.now(timezone.utc)
    if text[:-1].isdigit() and text[-1] in "dh":
        from datetime import timedelta

        amount = int(text[:-1])
        return now - (timedelta(days=amount) if text[-1] == "d" else timedelta(hours=amount))
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UserFacingError(f"--since {text!r} is not a date.",
                              "Use a date like 2026-11-01 (or 2026-11-01T08:00), or a span like 3d or 12h.") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def select(records: list[RunRecord], status: str | None = None, task: str | None = None,
           since: datetime | None = None) -> list[RunRecord]:
    """The runs that match every filter given; `task` matches part of the task type ('forecast', 'tabular')."""
    chosen = []
    for r in records:
        if status and r.status != status:
            continue
        if task and task.lower() not in (r.task_type or "").lower():
            continue
        if since and datetime.fromisoformat(r.created_at) < since:
            continue
        chosen.append(r)
    return chosen


def _metric(r: RunRecord) -> str:
    if r.metric and r.metric in r.metrics:
        return f"{r.metric}={r.metrics[r.metric]:.4f}"
    return r.metric or "-"


def runs_table(records: list[RunRecord]) -> str:
    header = ("run", "status", "task", "target", "metric", "created", "instruction")
    rows = [(r.run_id, r.status, r.task_type or "-", r.target or "-", _metric(r), r.created_at.replace("+00:00", "Z"),
             r.instruction[:50] + ("..." if len(r.instruction) > 50 else "")) for r in records]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in (header, *rows)]
    return "\n".join(lines)


def _data_line(r: RunRecord) -> str:
    source = r.data_source
    if source is None:
        return r.data_path
    if source.source == "url":
        return f"{source.url} (snapshot {r.data_path})"
    rows = f", {source.rows} rows" if source.rows else ""
    return f"{source.name} from {source.source} ({source.url or '-'}; licence {source.licence}{rows}); snapshot {r.data_path}"


def describe_run(r: RunRecord) -> str:
    """Everything a person asks about a run, in the order they ask it."""
    lines = [f"run {r.run_id}: {r.status.upper()}" + (f" ({r.message})" if r.message else ""),
             f"  instruction:  {r.instruction}",
             f"  data:         {_data_line(r)}",
             f"  created:      {r.created_at}"]
    if r.data_reading:
        lines.append(f"  read as:      {r.data_reading}" + (f"; typed copy {r.data_snapshot}" if r.data_snapshot else ""))
    if r.data_notes:
        lines.append("  data notes:")
        lines += [f"    - {note}" for note in r.data_notes]
    if r.warnings:
        lines.append("  WARNINGS:")
        lines += [f"    ! {w}" for w in r.warnings]
    if r.task_type:
        lines.append(f"  task:         {r.task_type}")
        lines.append(f"  target:       {r.target!r}" + (f" ({r.target_reason})" if r.target_reason else ""))
        lines.append(f"  metric:       {r.metric}")
        lines.append(f"  inputs:       {describe_inputs(r.inputs, r.left_out)}")
    if r.constraints:
        lines.append("  constraints:")
        for c in r.constraints:
            if c.satisfied is None:
                lines.append(f"    {c.name} {c.op} {c.target:g}")
            else:
                mark = "met" if c.satisfied else "NOT met"
                lines.append(f"    {c.name} {c.op} {c.target:g}: measured {c.measured} ({mark})")
    if r.retrieval:
        lines.append("  retrieval:")
        lines += [f"    {report.line()}" for report in r.retrieval]
    if r.plans:
        lines.append("  plans:")
        for p in r.plans:
            chosen = "  <- chosen" if p.title == r.chosen_plan else ""
            lines.append(f"    {p.plan_id}. {p.title} [{', '.join(p.model_families)}]{chosen}")
        if r.chosen_reason:
            lines.append(f"    why: {r.chosen_reason}")
    if r.corrections:
        lines.append("  cross-check corrections:")
        lines += [f"    - {note}" for note in r.corrections]
    if r.metrics:
        lines.append(f"  best model:   {r.best_model}")
        lines.append("  test metrics: " + ", ".join(f"{k}={v:.4f}" for k, v in r.metrics.items()))
    if r.status != "planned":
        lines.append(f"  revisions:    {r.revisions}; success score {r.success_score}")
    if r.registered_model:
        m = r.registered_model
        lines.append(f"  registered:   models:/{m.name}/{m.version} (@{m.alias} when registered; `automl-agent models list "
                     f"{m.name}` shows who holds each alias now)")
        if m.standing:
            lines.append(f"  why @{m.alias}: {m.standing.reason}")
    if r.bento_tag:
        lines.append(f"  bento:        {r.bento_tag}")
    if r.report_path:
        lines.append(f"  report:       {Path(r.report_path).with_suffix('.html')}")
    if r.demo_path:
        lines.append(f"  demo:         automl-agent demo {r.run_id}")
    if r.mlflow_run_id:
        lines.append(f"  MLflow:       run {r.mlflow_run_id} at {r.mlflow_tracking_uri}")
    if r.prefect_ui_url or r.prefect_flow_run_id:
        lines.append(f"  Prefect:      {r.prefect_ui_url or r.prefect_flow_run_id}")
    if r.timings:
        lines.append("  seconds:      " + ", ".join(f"{k} {v:.1f}" for k, v in r.timings.items()))
    lines.append(f"  brain:        {r.llm.brain_line()}")
    for note in r.llm.server_adjustments:
        lines.append(f"  LLM server:   {note}")
    return "\n".join(lines)
