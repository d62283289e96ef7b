"""One drift check of a served model: which version, its training sample, the records it answered, the measure,
the report (beside the log and in MLflow). Used by `automl-agent monitor` and by the scheduled watch flow."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel

from ..config import current_settings
from ..errors import UserFacingError
from .drift import DriftSummary

MONITORING_EXPERIMENT = "automl-agent-monitoring"


class DriftCheck(BaseModel):
    """What to check: a run id of the workspace, a registered name (its @champion) or models:/NAME@ALIAS|/VERSION."""
    target: str
    workdir: str
    tracking_uri: str
    log_dir: str | None = None
    since_hours: float | None = None
    min_rows: int = 100
    drift_share: float = 0.3


class DriftResult(BaseModel):
    model: str
    first_served: float
    last_served: float
    summary: DriftSummary
    report: str
    mlflow_run_id: str | None = None

    @property
    def drifted(self) -> bool:
        return self.summary.drifted


@dataclass
class Watched:
    name: str
    version: str
    reference: Path

    @property
    def label(self) -> str:
        return f"{self.name}:{self.version}"


def resolve(target: str, workdir: Path, tracking_uri: str) -> Watched:
    from ..platform.model_registry import resolve_version, safe_name
    from .reference import ARTIFACT_PATH, REFERENCE_FILE, registered_reference
    from ..workspace import Workspace

    workspace = Workspace(workdir)
    if not target.startswith("models:/") and (workspace.runs / target / "run.json").is_file():
        record = workspace.load(target)
        if not record.registered_model:
            raise UserFacingError(f"Run {target} delivered no model ({record.status}), so nothing of it is served.",
                                  "Monitor a run that registered a model (see `automl-agent runs`).")
        reference = workspace.run_dir(target) / ARTIFACT_PATH / REFERENCE_FILE
        if not reference.is_file():
            raise UserFacingError(f"Run {target} kept no training sample to compare with (it was delivered before "
                                  "monitoring existed, or its task is not monitored; its log says which).",
                                  "Rerun the training to monitor this model.", status="rejected")
        return Watched(record.registered_model.name, str(record.registered_model.version), reference)
    uri = target if target.startswith("models:/") else f"models:/{target}@champion"
    try:
        name, version = resolve_version(uri, tracking_uri)
    except UserFacingError as exc:
        if target.startswith("models:/"):
            raise
        recent = ", ".join(r.run_id for r in workspace.list()[-3:]) or "none"
        raise UserFacingError(f"{target!r} is neither a run of {workdir} nor a registered model with a @champion "
                              f"({exc.problem})", f"Runs here: {recent} (`automl-agent runs`). {exc.hint}") from None
    cache = workdir / "monitoring" / safe_name(name) / f"reference-v{version}"
    reference = cache / REFERENCE_FILE
    if not reference.is_file():
        reference = registered_reference(tracking_uri, name, version, cache)
    if reference is None:
        raise UserFacingError(f"{name} v{version} has no training sample in its MLflow run to compare with (it was "
                              "registered before monitoring existed, or its task is not monitored).",
                              "Monitor a version registered by a newer run.", status="rejected")
    return Watched(name, version, Path(reference))


def check_drift(check: DriftCheck) -> DriftResult:
    """Raises UserFacingError (status rejected) when there is too little traffic to judge or nothing to compare."""
    import pandas as pd

    from ..platform.model_registry import safe_name
    from .drift import measure
    from .served_log import log_folder, read_served

    if not 0 < check.drift_share <= 1:
        raise UserFacingError(f"--drift-share {check.drift_share} is not a share.", "Give a number above 0, at most 1.")
    if check.min_rows < 1:
        raise UserFacingError(f"--min-rows {check.min_rows} must be at least 1.", "Leave it out for 100.")
    workdir = Path(check.workdir)
    watched = resolve(check.target, workdir, check.tracking_uri)
    folder = log_folder(check.log_dir or current_settings().monitor_dir or workdir / "monitoring",
                        safe_name(watched.name))
    since = time.time() - check.since_hours * 3600 if check.since_hours else None
    served = read_served(folder, since=since) if folder.is_dir() else pd.DataFrame()
    others = sorted(set(served["served_by"]) - {watched.label}) if len(served) else []
    if len(served):
        served = served[served["served_by"] == watched.label]
    if len(served) < check.min_rows:
        window = f" in the last {check.since_hours:g} h" if check.since_hours else ""
        by_others = f" ({', '.join(others)} answered others)" if others else ""
        raise UserFacingError(
            f"{watched.label} answered {len(served)} logged records{window} ({folder}){by_others}; drift on fewer "
            f"than {check.min_rows} is noise.",
            "Monitor again after more traffic, widen --since, or lower --min-rows.", status="rejected")
    reference = pd.read_parquet(watched.reference)
    numeric = [c for c in reference.columns if pd.api.types.is_numeric_dtype(reference[c])]
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    out = folder / "reports" / f"{stamp}-v{watched.version}"
    print(f"comparing {len(served)} served records of {watched.label} with {len(reference)} training rows ...",
          file=sys.stderr)
    summary = measure(reference, served.drop(columns=["served_at", "served_by"]), numeric,
                      drift_share=check.drift_share, html_path=out / "drift.html")
    result = DriftResult(model=watched.label, first_served=float(served["served_at"].min()),
                         last_served=float(served["served_at"].max()), summary=summary, report=str(out / "drift.html"))
    (out / "drift.json").write_text(result.model_dump_json(indent=2))
    result.mlflow_run_id = _log_to_mlflow(check.tracking_uri, watched, summary, out)
    return result


def _log_to_mlflow(tracking_uri: str, watched: Watched, summary, out: Path) -> str | None:
    """The report as an MLflow run of the monitoring experiment, tagged with the model and version; a tracking
    server that cannot take it costs the log, not the verdict."""
    try:
        from mlflow.tracking import MlflowClient

        client = MlflowClient(tracking_uri)
        experiment = client.get_experiment_by_name(MONITORING_EXPERIMENT)
        experiment_id = experiment.experiment_id if experiment else client.create_experiment(MONITORING_EXPERIMENT)
        run = client.create_run(experiment_id, run_name=f"drift {watched.label}",
                                tags={"model_name": watched.name, "model_version": watched.version,
                                      "drifted": str(summary.drifted).lower()})
        run_id = run.info.run_id
        client.log_metric(run_id, "served_rows", summary.served_rows)
        client.log_metric(run_id, "drifted_share", summary.drifted_share)
        client.log_metric(run_id, "drifted", float(summary.drifted))
        if summary.prediction and summary.prediction.score is not None:
            client.log_metric(run_id, "prediction_drift_score", summary.prediction.score)
        client.log_artifact(run_id, str(out / "drift.html"), "drift")
        client.log_artifact(run_id, str(out / "drift.json"), "drift")
        client.set_terminated(run_id)
        return run_id
    except Exception as exc:  # noqa: BLE001 - said, and the exit code still tells the drift
        print(f"note: the report was not logged to MLflow at {tracking_uri}: {str(exc).splitlines()[0][:200]}",
              file=sys.stderr)
        return None


