"""Retraining when the served model drifted (deployment `automl-agent-watch/drift`, scheduled by `automl-agent
schedule add --when-drifted`): a drift check of the model's @champion against the traffic it answered, then, only
on drift, a retraining run whose new version takes @champion only by beating the current one (the champion gate)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

from prefect import flow, task
from pydantic import BaseModel, Field

from ..errors import UserFacingError
from ..monitoring.check import DriftCheck, DriftResult


class WatchVerdict(BaseModel):
    model: str
    drifted: bool
    reason: str
    result: DriftResult | None = None
    retrained_run: str | None = None
    new_version: str | None = None
    new_alias: str | None = None


@task(name="drift_check")
def drift_check(check: DriftCheck) -> WatchVerdict:
    """Too little traffic or nothing to compare with is a verdict (no retraining), not a failure of the flow."""
    from ..monitoring.check import check_drift

    try:
        result = check_drift(check)
    except UserFacingError as exc:
        if exc.status != "rejected":
            raise
        return WatchVerdict(model=check.target, drifted=False, reason=f"not judged: {exc.problem}")
    reason = "; ".join(result.summary.reasons) if result.drifted else (
        f"no drift ({result.summary.drifted_share:.0%} of the input columns drifted, limit "
        f"{result.summary.drift_share_limit:.0%}; the predictions did not)")
    return WatchVerdict(model=result.model, drifted=result.drifted, reason=reason, result=result)


def verdict_markdown(verdict: WatchVerdict) -> str:
    lines = [f"# Drift check of {verdict.model}", "", f"**{'DRIFTED' if verdict.drifted else 'kept'}**: {verdict.reason}"]
    if verdict.result:
        summary = verdict.result.summary
        lines += ["", f"{summary.served_rows} served records against {summary.reference_rows} training rows; "
                      f"report: `{verdict.result.report}`", "", "| column | test | score | drifted | blank (training → served) |",
                  "|---|---|---|---|---|"]
        columns = sorted(summary.columns, key=lambda c: (not c.drifted, c.column))
        for c in columns + ([summary.prediction] if summary.prediction else []):
            score = "-" if c.score is None else f"{c.score:.3g}"
            lines.append(f"| {c.column} | {c.method} | {score} | {'**yes**' if c.drifted else 'no'} | "
                         f"{c.missing_reference:.0%} → {c.missing_served:.0%} |")
    if verdict.retrained_run:
        lines += ["", f"Retrained: run {verdict.retrained_run} registered version {verdict.new_version} "
                      f"(@{verdict.new_alias})."]
    return "\n".join(lines)


@flow(name="automl-agent-watch", log_prints=False, persist_result=True)
def watch(
    model: str = Field(description="The registered model to watch (its @champion), e.g. churn."),
    instruction: str = Field(description="The retraining instruction, as for automl-agent/run."),
    data: str = Field(description="The table to retrain on: a path the worker reads, or a URL."),
    log_dir: Optional[str] = Field(default=None, description="The folder of the services' traffic logs, as the "
                                                             "worker sees it; empty: the worker's "
                                                             "AUTOML_AGENT_MONITOR_DIR, else its workspace's "
                                                             "monitoring/."),
    since_hours: Optional[float] = Field(default=None, gt=0, description="Only the traffic of the last hours."),
    min_rows: int = Field(default=100, ge=1, description="Fewer served records: no verdict, no retraining."),
    drift_share: float = Field(default=0.3, gt=0, le=1, description="Share of input columns that must drift."),
    target: Optional[str] = Field(default=None, description="The column to predict; empty: inferred."),
    budget: float = Field(default=60.0, gt=0, description="Seconds for the retraining's search and final fit."),
    training_pool: Optional[str] = Field(default=None, description="Work pool that trains the script."),
) -> dict[str, Any]:
    from prefect import get_run_logger
    from prefect.artifacts import create_markdown_artifact

    from ..config import current_settings
    from ..serving.packaging import safe_name
    from ..config import user_home
    from ..settings import configure_environment, default_tracking_uri
    from .deployed import run

    logger = get_run_logger()
    workdir = Path(current_settings().workdir or user_home() / "workspace")
    configure_environment(workdir)
    tracking_uri = os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(workdir)
    name = model.removeprefix("models:/").split("@")[0].split("/")[0]
    verdict = drift_check(DriftCheck(target=f"models:/{name}@champion", workdir=str(workdir), tracking_uri=tracking_uri,
                                     log_dir=log_dir, since_hours=since_hours, min_rows=min_rows,
                                     drift_share=drift_share))
    logger.info("%s: %s", verdict.model, verdict.reason)
    if verdict.drifted:
        record = run(instruction=instruction, data=data, target=target, budget=budget, training_pool=training_pool,
                     model_name=name)
        registered = record.registered_model
        verdict.retrained_run = record.run_id
        verdict.new_version, verdict.new_alias = (registered.version, registered.alias) if registered else (None, None)
        logger.info("retrained: run %s, version %s @%s", record.run_id, verdict.new_version, verdict.new_alias)
    create_markdown_artifact(verdict_markdown(verdict), key=f"drift-{safe_name(name)}".replace("_", "-")[:100],
                             description=f"drift check of {name}")
    return verdict.model_dump(mode="json")
