"""`automl-agent monitor RUN_ID|NAME|models:/NAME@ALIAS`: what a served model was asked, against what it was trained
on. Writes an Evidently HTML report (workspace and MLflow) and exits 3 when the model has drifted, so a schedule
can run it and retrain on that."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_REFUSED, EXIT_DRIFTED = 0, 1, 2, 3


def add_parser(sub, common: list[argparse.ArgumentParser]) -> None:
    monitor = sub.add_parser(
        "monitor", parents=common,
        help="compare what a served model was asked with what it was trained on (drift report; exit 3 on drift)",
        description="Reads the records the served model answered (its service keeps a sampled, size-capped log: "
                    "AUTOML_AGENT_MONITOR_DIR, by default the workspace's monitoring/ folder) and compares them with "
                    "a sample of its training rows, column by column, with Evidently. Exit codes: 0 no drift, "
                    "3 drift (the shifted columns are named), 2 too few served records to judge, 1 an error.")
    monitor.add_argument("model", metavar="RUN_ID|NAME|MODEL_URI",
                         help="a run id of this workspace, a registered model name (its @champion), or "
                              "models:/NAME@ALIAS / models:/NAME/VERSION")
    monitor.add_argument("--since", type=float, default=None, metavar="HOURS",
                         help="only the records served in the last HOURS hours (default: all that the log keeps)")
    monitor.add_argument("--min-rows", type=int, default=100,
                         help="fewer served records than this is too little to judge: exit 2 (default 100)")
    monitor.add_argument("--drift-share", type=float, default=0.3,
                         help="the model has drifted when at least this share of its input columns drifted, or its "
                              "predictions did (default 0.3)")
    monitor.add_argument("--log-dir", default=None,
                         help="the folder that holds the services' logs (default: $AUTOML_AGENT_MONITOR_DIR, else "
                              "WORKDIR/monitoring)")
    monitor.add_argument("--json", action="store_true", help="the summary as JSON on stdout")


def cmd_monitor(args: argparse.Namespace) -> int:
    from ..monitoring.check import DriftCheck, check_drift
    from ..settings import configure_environment, default_tracking_uri

    workdir = Path(args.workdir).resolve()
    configure_environment(workdir)
    result = check_drift(DriftCheck(
        target=args.model, workdir=str(workdir),
        tracking_uri=os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(workdir), log_dir=args.log_dir,
        since_hours=args.since, min_rows=args.min_rows, drift_share=args.drift_share))
    if args.json:
        payload = {"model": result.model, "first_served": result.first_served, "last_served": result.last_served,
                   **result.summary.model_dump(), "report": result.report, "mlflow_run_id": result.mlflow_run_id}
        print(json.dumps(payload, indent=2))
    else:
        print(render(result))
    return EXIT_DRIFTED if result.drifted else EXIT_OK


def render(result) -> str:
    summary, html, mlflow_run_id = result.summary, result.report, result.mlflow_run_id

    def line(c) -> str:
        score = "-" if c.score is None else f"{c.score:.3g}"
        missing = f"{c.missing_reference:.0%} -> {c.missing_served:.0%}"
        distance = "-" if c.distance is None else f"{c.distance:.3g}"
        return (f"  {'DRIFT' if c.drifted else 'ok':5}  {c.column[:32]:32}  {c.method[:34]:34}  {score:>9}  "
                f"{distance:>8}  {missing:>11}  {c.note}").rstrip()

    rows = [f"{result.model}: {summary.served_rows} served records against {summary.reference_rows} training rows",
            f"  {'':5}  {'column':32}  {'test':34}  {'score':>9}  {'distance':>8}  {'blank':>11}"]
    rows += [line(c) for c in sorted(summary.columns, key=lambda c: (not c.drifted, c.column))]
    if summary.prediction:
        rows.append(line(summary.prediction))
    shifted = summary.drifted_columns
    verdict = ("DRIFTED: " + "; ".join(summary.reasons)) if summary.drifted else (
        f"no drift: {summary.drifted_share:.0%} of the input columns drifted (limit {summary.drift_share_limit:.0%}), "
        "the predictions did not")
    if shifted and not any(", ".join(shifted) in reason for reason in summary.reasons):
        verdict += f"\ncolumns that drifted: {', '.join(shifted)}"
    rows += ["", verdict, f"report: {html}" + (f" (MLflow run {mlflow_run_id}, experiment automl-agent-monitoring)"
                                               if mlflow_run_id else "")]
    return "\n".join(rows)
