"""Delivery: the registered MLflow model (with alias), a bento, a Gradio demo file, and the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prefect import task
from prefect.artifacts import create_markdown_artifact

from .. import context
from ..context import RunRef
from ..agents.contracts import ImplementationVerdict, PipelineResult, RequirementSpec
from ..serving import aliases, champion, packaging, portable
from ..serving.frames import as_registered, consumer_signature, describe_version, example_frame
from ..serving.registry import registry_label
from ..model_export import load_trained_model
from ..monitoring import reference as monitoring_reference
from ..reporting import HeldOutEvidence, write_report
from ..reporting import evidence as held_out
from ..workspace import RegisteredModel


EVIDENCE = "evidence.json"


def model_requirements(task: str) -> list[str]:
    """What a registry consumer installs to load the model, pinned, with automl-agent itself: the model's types are
    its classes. (The model does not carry the project's code: MLflow would put that copy first on the path of every
    process that loads it, and a worker would then run the model's copy instead of its own installation.)"""
    from .. import __version__

    return [*portable.direct_pins(portable.model_libraries(task)), f"automl-agent=={__version__}"]


@task(name="register_model",
      description="The model in the MLflow registry; @champion only if it scores at least as well as the champion "
                  "on the same held-out rows.")
def register_model(run: RunRef, spec: RequirementSpec, result: PipelineResult, verdict: ImplementationVerdict,
                   version: int) -> tuple[RegisteredModel, str, dict[str, Any]]:
    """Load the trained bundle, prove it predicts, log it and its measured numbers to MLflow and register it with an
    alias."""
    ctx = context.get(run)
    ctx.tracker.metrics(ctx.mlflow_run_id, result.results["metrics"], prefix="test_")
    ctx.tracker.metrics(ctx.mlflow_run_id, {k: result.results.get(k) for k in (
        "latency_ms", "model_size_mb", "training_time_s", "peak_memory_mb", "n_trials", "cv_score")})
    attempt = Path(result.workdir)
    model = load_trained_model(attempt, memory_mb=ctx.options.memory_mb)
    schema = json.loads((attempt / "model" / "schema.json").read_text())
    example = example_frame(schema)
    model.predict(example)  # a model that cannot predict is not delivered
    task, pos_label = spec.problem.downstream_task.value, result.results.get("positive_label")
    evidence = held_out.collect(model, task, spec.dataset.path, attempt, schema, pos_label=pos_label)
    (ctx.run_dir / EVIDENCE).write_text(evidence.model_dump_json())
    _keep_reference(ctx, model, task, spec.dataset.path, attempt, schema)
    name = ctx.options.model_name or packaging.safe_name(f"{Path(spec.dataset.path).stem}-{task}")
    summary = {"task": task, "data": Path(spec.dataset.path).name, "run_id": run.run_id,
               "name": name, "metrics": result.results.get("metrics", {}),
               "constraints": [c.model_dump() for c in verdict.checks]}
    rival = aliases.rival(ctx.tracker.client, name, task=task, data_path=spec.dataset.path, attempt=attempt,
                          schema=schema, pos_label=pos_label)
    registered, model_uri = ctx.tracker.log_model(ctx.mlflow_run_id, as_registered(model, schema), example, name,
                                                  model_requirements(task), schema=schema,
                                                  signature=consumer_signature(example, schema))
    standing = champion.decide(metric=spec.problem.metric, evidence=evidence, run_passed=verdict.passed,
                               run_reason=verdict.reason, rival=rival, contract=champion.input_contract(schema),
                               allow_schema_change=ctx.options.allow_schema_change)
    aliases.record_standing(ctx.tracker.client, name, registered.version, standing)
    summary["standing"] = f"@{standing.alias}: {standing.reason}"
    summary["version"] = registered.version
    ctx.tracker.client.update_model_version(name, registered.version, description=describe_version(schema, summary))
    return registered.model_copy(update={"alias": standing.alias, "standing": standing}), model_uri, schema


def _keep_reference(ctx, model, task: str, data_path: str, attempt: Path, schema: dict[str, Any]) -> None:
    """The training sample `automl-agent monitor` compares served traffic with: beside the run and in its MLflow
    run. A model whose reference cannot be built is still delivered; the run says why it cannot be monitored."""
    try:
        frame = monitoring_reference.build_reference(model, task, data_path, attempt, schema, seed=ctx.options.seed)
        path = monitoring_reference.write_reference(frame, ctx.run_dir / monitoring_reference.ARTIFACT_PATH)
        ctx.tracker.file(ctx.mlflow_run_id, path, monitoring_reference.ARTIFACT_PATH)
    except Exception as exc:  # noqa: BLE001 - monitoring is an addition to the delivered model, not a condition
        ctx.reporter.always(f"note: no drift reference for this model ({str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}); "
                            "`automl-agent monitor` cannot watch it")


def reference_path(run_dir: Path) -> Path | None:
    path = run_dir / monitoring_reference.ARTIFACT_PATH / monitoring_reference.REFERENCE_FILE
    return path if path.is_file() else None


@task(name="build_bento",
      description="The BentoML service, built offline with pinned requirements.",
      retries=1, retry_delay_seconds=1)
def build_bento(run: RunRef, model_uri: str, registered: RegisteredModel, schema: dict[str, Any]) -> str:
    ctx = context.get(run)
    return packaging.build_bento(ctx.run_dir, model_uri, f"{registered.name}:{registered.version}", schema, registered.name,
                                 extra_labels={"registry": registry_label(ctx.tracker.tracking_uri)},
                                 reference=reference_path(ctx.run_dir))


def load_evidence(run_dir: Path) -> HeldOutEvidence | None:
    path = run_dir / EVIDENCE
    return HeldOutEvidence.model_validate_json(path.read_text()) if path.is_file() else None


@task(name="write_demo", description="The Gradio demo page with the model card.")
def write_demo(run: RunRef, model_uri: str, spec: RequirementSpec, schema: dict[str, Any], card: dict[str, Any]) -> str:
    ctx = context.get(run)
    path = packaging.write_demo(ctx.run_dir, tracking_uri=ctx.tracker.tracking_uri, model_uri=model_uri, schema=schema,
                                title=f"{spec.dataset.name}: {spec.problem.downstream_task.value.replace('_', ' ')}",
                                description=spec.problem.description, data_path=spec.dataset.path, card=card,
                                evidence=load_evidence(ctx.run_dir))
    ctx.tracker.file(ctx.mlflow_run_id, path, "deployment")
    ctx.tracker.file(ctx.mlflow_run_id, path.with_name("demo_config.json"), "deployment")
    return str(path)


def _artifact_markdown(markdown: str, tracking_uri: str, mlflow_run_id: str | None) -> str:
    """The report for Prefect's artifact view, which cannot open files in the run folder: pictures become links to
    the MLflow server's copies when there is a server, and a pointer to report.html otherwise."""
    import re

    if tracking_uri.startswith(("http://", "https://")) and mlflow_run_id:
        base = tracking_uri.rstrip("/")
        return re.sub(r"!\[([^\]]*)\]\((report_[\w.]+\.png)\)",
                      lambda m: f"![{m[1]}]({base}/get-artifact?path=report/{m[2]}&run_uuid={mlflow_run_id})", markdown)
    stripped = re.sub(r"!\[[^\]]*\]\(report_[\w.]+\.png\)\n", "", markdown)
    return stripped + "\n*The pictures are in report.html, in the run folder and in the MLflow run's report/ folder.*\n"


@task(name="report", description="report.md and report.html, in MLflow and as a Prefect artifact.")
def report(run: RunRef, record_json: str, results: dict[str, Any]) -> str:
    ctx = context.get(run)
    files = write_report(ctx.run_dir, json.loads(record_json), results, load_evidence(ctx.run_dir))
    for path in [files.markdown_path, files.html_path, *files.pictures]:
        ctx.tracker.file(ctx.mlflow_run_id, Path(path), "report")
    create_markdown_artifact(_artifact_markdown(files.markdown, ctx.tracker.tracking_uri, ctx.mlflow_run_id),
                             key=f"automl-report-{run.run_id.lower()}"[:100].replace("_", "-"),
                             description=f"automl-agent run {run.run_id}; MLflow run {ctx.mlflow_run_id} at {ctx.tracker.tracking_uri}")
    return files.markdown_path
