"""The automl flow: the paper's Algorithm 1 as a Prefect flow. One function per phase (flows/phases.py: INIT, PLAN,
EXECUTE, IMPLEMENT, DELIVER), revised with the verifications' feedback; the run's opening and closing bookkeeping is in
flows/lifecycle.py, and the deployment's entry (the Prefect UI's Run form) in flows/deployed.py."""

from __future__ import annotations

import time
from typing import Any

from prefect import flow

from .. import context
from ..console import Reporter
from ..settings import RunOptions
from ..workspace import RunRecord
from . import lifecycle, phases
from .task_runners import ConfiguredTaskRunner


@flow(name="automl-agent", flow_run_name="automl-{options.run_id}", task_runner=ConfiguredTaskRunner(),
      log_prints=False, persist_result=True)
def automl_flow(options: RunOptions) -> RunRecord:
    """The CLI's entry: typed options; progress goes to the reporter the caller attached for this run id (a flow
    parameter must be serializable: a terminal stream is not)."""
    from prefect import get_run_logger

    reporter = context.attached_reporter(options.run_id or "") or Reporter()
    if reporter.logger is None:  # the stage lines go to the Prefect UI too, at INFO
        reporter.logger = get_run_logger()
    return run_automl(options, reporter)


def run_automl(options: RunOptions, reporter: Reporter) -> RunRecord:
    """One run: opened, its phases run, and closed with its record saved whatever happened (lifecycle.recorded)."""
    started = time.perf_counter()
    ctx, record = lifecycle.open_run(options, reporter)
    with lifecycle.recorded(ctx, record, started) as run:
        run.ctx = lifecycle.begin(run.ctx, record)
        run.results = _run_stages(run.ctx, record)
    return record


def _run_stages(ctx: context.StageContext, record: RunRecord) -> dict[str, Any]:
    """The paper's Algorithm 1: INIT, PLAN, EXECUTE, IMPLEMENT, revised with the verifications' feedback until an
    implementation passes or the revisions run out; then DELIVER the best attempt."""
    profile, spec = phases.init(ctx, record)
    knowledge = phases.retrieve(ctx, record, spec, profile)
    best: phases.Attempt | None = None
    feedback, previous_error = "", ""
    for revision in range(ctx.options.max_revisions + 1):
        if revision:
            ctx.reporter.detail(f"revision {revision}: {feedback[:200]}")
        plans = phases.plan(ctx, record, spec, knowledge, feedback, revision)
        if ctx.options.dry_run:
            record.status, record.message = "planned", "dry run: stopped after PLAN, nothing trained"
            return {}
        chosen = phases.execute(ctx, record, spec, profile, plans, revision)
        attempt = phases.implement(ctx, record, spec, chosen, revision, previous_error)
        if best is None or attempt.rank(spec) > best.rank(spec):
            best = attempt
        if attempt.passed:
            break
        feedback, previous_error = attempt.feedback(), attempt.result.error
    if best is None:
        raise RuntimeError("no implementation was attempted: max_revisions must be at least 0")
    return phases.deliver(ctx, record, spec, best)
