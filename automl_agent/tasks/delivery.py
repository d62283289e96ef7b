"""Delivery: the registered MLflow model (with alias), a bento, a Gradio demo file, and the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import joblib
from prefect import task
from prefect.artifacts import create_markdown_artifact

from .. import context
from ..context import RunRef
from ..agents.contracts import ImplementationVerdict, PipelineResult, RequirementSpec
from ..deployments import packaging
from ..deployments.frames import describe_version, example_frame
from ..deployments.registry import registry_label
from ..reporting import write_report
from ..workspace import RegisteredModel


def model_requirements() -> list[str]:
    from importlib.metadata import version

    return [f"{name}=={version(name)}" for name in ("scikit-learn", "lightgbm", "pandas", "numpy", "joblib")] + ["automl-agent"]


@task(name="register_model")
def register_model(run: RunRef, spec: RequirementSpec, result: PipelineResult, verdict: ImplementationVerdict,
                   version: int) -> tuple[RegisteredModel, str, dict[str, Any]]:
    """Load the trained bundle, prove it predicts, log it to MLflow and register it with an alias."""
    ctx = context.get(run)
    attempt = Path(result.workdir)
    model = joblib.load(attempt / "model" / "model.joblib")
    schema = json.loads((attempt / "model" / "schema.json").read_text())
    example = example_frame(schema)
    model.predict(example)  # a model that cannot predict is not delivered
    name = ctx.options.model_name or packaging.safe_name(f"{Path(spec.dataset.path).stem}-{spec.problem.downstream_task.value}")
    alias = "champion" if verdict.passed else "candidate"
    summary = {"task": spec.problem.downstream_task.value, "data": Path(spec.dataset.path).name, "run_id": run.run_id,
               "name": name, "metrics": result.results.get("metrics", {}),
               "constraints": [c.model_dump() for c in verdict.checks]}
    registered, model_uri = ctx.tracker.log_model(ctx.mlflow_run_id, model, example, name, alias, model_requirements(),
                                                  schema=schema, description=describe_version(schema, summary))
    return registered, model_uri, schema


@task(name="build_bento", retries=1, retry_delay_seconds=1)
def build_bento(run: RunRef, model_uri: str, registered: RegisteredModel, schema: dict[str, Any]) -> str:
    ctx = context.get(run)
    return packaging.build_bento(ctx.run_dir, model_uri, f"{registered.name}:{registered.version}", schema, registered.name,
                                 extra_labels={"registry": registry_label(ctx.tracker.tracking_uri)})


@task(name="write_demo")
def write_demo(run: RunRef, model_uri: str, spec: RequirementSpec, schema: dict[str, Any]) -> str:
    ctx = context.get(run)
    path = packaging.write_demo(ctx.run_dir, tracking_uri=ctx.tracker.tracking_uri, model_uri=model_uri, schema=schema,
                                title=f"{spec.dataset.name}: {spec.problem.downstream_task.value.replace('_', ' ')}",
                                description=spec.problem.description)
    ctx.tracker.file(ctx.mlflow_run_id, path, "deployment")
    return str(path)


@task(name="report")
def report(run: RunRef, record_json: str, results: dict[str, Any]) -> str:
    ctx = context.get(run)
    path, markdown = write_report(ctx.run_dir, json.loads(record_json), results)
    ctx.tracker.file(ctx.mlflow_run_id, path, "report")
    for plot in sorted(ctx.run_dir.glob("report_*.png")):
        ctx.tracker.file(ctx.mlflow_run_id, plot, "report")
    create_markdown_artifact(markdown, key=f"automl-report-{run.run_id.lower()}"[:100].replace("_", "-"),
                             description=f"automl-agent run {run.run_id}; MLflow run {ctx.mlflow_run_id} at {ctx.tracker.tracking_uri}")
    return str(path)
