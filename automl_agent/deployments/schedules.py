"""Scheduled retraining: Prefect's own schedules on the `automl-agent/run` deployment, each carrying the run's
parameters (instruction, data, model name, ...), so the server's scheduler creates the runs and the pool's workers
train them. With the champion gate, a retrained version takes @champion only when it is at least as good."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import BaseModel

from ..errors import UserFacingError
from ..platform.prefect_api import prefect_client

DEPLOYMENT = "automl-agent/run"
WATCH_DEPLOYMENT = "automl-agent-watch/drift"  # a drift check first; retraining only on drift
DEPLOYMENTS = (DEPLOYMENT, WATCH_DEPLOYMENT)
_EVERY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|seconds?|m|min|minutes?|h|hours?|d|days?|w|weeks?)?\s*$", re.I)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class ScheduleRow(BaseModel):
    name: str
    deployment: str = DEPLOYMENT
    id: str
    when: str
    active: bool
    parameters: dict[str, Any]


def parse_every(text: str) -> timedelta:
    """'90s', '15m', '6h', '1d', '2 weeks' or plain seconds; at least a minute (the scheduler's own step)."""
    match = _EVERY.match(text)
    if not match:
        raise UserFacingError(f"--every {text!r} is not an interval.", "Write a number and a unit: 30m, 6h, 1d, 1w.")
    seconds = float(match[1]) * _UNIT_S[(match[2] or "s")[0].lower()]
    if seconds < 60:
        raise UserFacingError(f"--every {text} is shorter than a minute: Prefect's scheduler does not go finer.",
                              "Use 1m or more.")
    return timedelta(seconds=seconds)


def _schedule(every: str | None, cron: str | None, timezone: str):
    from prefect.client.schemas.schedules import CronSchedule, IntervalSchedule

    if bool(every) == bool(cron):
        raise UserFacingError("Say when, once: --every INTERVAL or --cron 'MIN HOUR DAY MONTH WEEKDAY'.",
                              "e.g. --every 1d, or --cron '0 3 * * 1' --timezone Europe/Paris for Mondays at 03:00.")
    try:
        if cron:
            return CronSchedule(cron=cron, timezone=timezone)
        return IntervalSchedule(interval=parse_every(every or ""), timezone=timezone)
    except ValueError as exc:
        errors = getattr(exc, "errors", lambda: [])()
        detail = "; ".join(str(e.get("msg", "")).removeprefix("Value error, ") for e in errors) or str(exc)
        raise UserFacingError(f"The schedule is not valid: {detail}",
                              "Check the cron expression (5 fields) and the timezone (an IANA name such as "
                              "Europe/Paris or UTC).") from None


def _describe(schedule) -> str:
    if getattr(schedule, "cron", None):
        return f"cron '{schedule.cron}' ({schedule.timezone or 'UTC'})"
    if getattr(schedule, "interval", None):
        return f"every {schedule.interval} ({schedule.timezone or 'UTC'})"
    return str(schedule)


def run_parameters(instruction: str, data: str, **options: Any) -> dict[str, Any]:
    """The deployment's parameters for a scheduled run, checked here rather than failing at 03:00."""
    if not instruction.strip():
        raise UserFacingError("The instruction is empty.", 'Say what to retrain, e.g. "Predict churn; F1 at least 0.6".')
    if not data.strip():
        raise UserFacingError("A scheduled run needs --data: the table to retrain on, as the worker reads it.",
                              "Give an absolute path on the workers, or a URL (https://, s3://, openml://ID).")
    if "://" not in data and not Path(data).is_absolute():
        raise UserFacingError(f"--data {data} is a relative path; the worker starts in its own folder.",
                              f"Give an absolute path, e.g. --data {Path(data).resolve()}.")
    return {"instruction": instruction.strip(), "data": data.strip(),
            **{k: v for k, v in options.items() if v not in (None, "")}}


def add(api_url: str | None, *, name: str, parameters: dict[str, Any], every: str | None, cron: str | None,
        timezone: str = "UTC", deployment_name: str = DEPLOYMENT) -> ScheduleRow:
    from prefect.exceptions import ObjectNotFound

    schedule = _schedule(every, cron, timezone)
    taken = [row for row in listing(api_url) if row.name == name]
    if taken:
        raise UserFacingError(f"A schedule named {name!r} exists already on {taken[0].deployment}.",
                              f"Pick another --name, or remove it first: automl-agent schedule remove {name}.")
    with prefect_client(api_url) as client:
        try:
            deployment = client.read_deployment_by_name(deployment_name)
        except ObjectNotFound:
            raise UserFacingError(f"The deployment {deployment_name} is not on this Prefect server.",
                                  "Run `automl-agent deploy` first.") from None
        # two runs ahead at most: a short interval must not fill the queue with hours of future runs
        created = client.create_deployment_schedules(deployment.id, [(schedule, True)], parameters=parameters,
                                                     slug=name, max_scheduled_runs=2)[0]
    return ScheduleRow(name=created.slug or name, deployment=deployment_name, id=str(created.id),
                       when=_describe(created.schedule), active=created.active,
                       parameters=created.parameters or parameters)


def listing(api_url: str | None) -> list[ScheduleRow]:
    """The schedules of both deployments: plain retraining, and retraining on drift."""
    from prefect.exceptions import ObjectNotFound

    rows = []
    with prefect_client(api_url) as client:
        for deployment_name in DEPLOYMENTS:
            try:
                deployment = client.read_deployment_by_name(deployment_name)
            except ObjectNotFound:
                continue
            rows += [ScheduleRow(name=s.slug or "", deployment=deployment_name, id=str(s.id),
                                 when=_describe(s.schedule), active=s.active, parameters=s.parameters or {})
                     for s in deployment.schedules or []]
    return rows


def remove(api_url: str | None, name: str) -> ScheduleRow:
    from prefect.exceptions import ObjectNotFound

    rows = listing(api_url)
    found = next((r for r in rows if name in (r.name, r.id)), None)
    if found is None:
        raise UserFacingError(f"No schedule {name!r} on {' or '.join(DEPLOYMENTS)}.",
                              f"Its schedules: {', '.join(r.name or r.id for r in rows) or 'none'}.")
    with prefect_client(api_url) as client:
        deployment = client.read_deployment_by_name(found.deployment)
        try:
            client.delete_deployment_schedule(deployment.id, UUID(found.id))
        except ObjectNotFound:
            pass
    return found
