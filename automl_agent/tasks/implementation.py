from __future__ import annotations

import json
import time
from pathlib import Path

from prefect import task

from .. import context
from ..context import RunRef
from ..agents import manager, operation_agent
from ..agents.contracts import (
    ImplementationVerdict, PipelineResult, PipelineScript, PlanOutcome, RequirementSpec, attempt_dir,
)
from .. import training
from ..config import current_settings
from ..platform import cluster_training
from ..sandbox import run_script
from .common import STAGE_CACHE, retry_unless_user_error


@task(name="write_pipeline",
      description="Operation agent: the training script.",
      cache_policy=STAGE_CACHE, retries=2, retry_delay_seconds=2, retry_condition_fn=retry_unless_user_error)
def write_pipeline(run: RunRef, spec: RequirementSpec, outcome: PlanOutcome, version: int, previous_error: str,
                   attempt: int = 1, force_skeleton: bool = False) -> tuple[PipelineScript, list[str]]:
    """The operation agent's script for this version and code attempt, and the static problems of the brain's code
    (when there are any the script is the rendered skeleton and the problems are feedback for the next attempt)."""
    ctx = context.get(run)
    opts = ctx.options
    config = operation_agent.build_config(spec, outcome, budget_s=opts.budget_s, n_jobs=opts.n_jobs, seed=opts.seed)
    if opts.training_pool:  # the worker finds the data beside the script, wherever that is
        config["data_path"] = training.data_snapshot(spec.dataset.path, spec.problem.downstream_task.value)[1]
    script, problems = operation_agent.write_script(ctx.brain, spec, outcome, config, version=version,
                                                     run_dir=ctx.run_dir, previous_error=previous_error,
                                                     attempt=attempt, force_skeleton=force_skeleton)
    if problems:
        ctx.reporter.detail(f"generated script rejected: {'; '.join(problems)}")
    ctx.tracker.text(ctx.mlflow_run_id, script.source, f"scripts/{Path(script.path).name}")
    ctx.tracker.json(ctx.mlflow_run_id, {"author": script.author, "attempt": attempt, "static_problems": problems,
                                         "feedback_given": previous_error[-4000:]},
                     f"scripts/{Path(script.path).stem}.meta.json")
    return script, problems


def _progress_printer(ctx: context.StageContext):
    def on_line(line: str) -> None:
        if line.startswith("PROGRESS "):
            p = json.loads(line[9:])
            ctx.reporter.trial(p, budget_s=ctx.options.budget_s)
    return on_line


def training_place(spec: RequirementSpec, training_pool: str | None) -> str:
    """Where run_pipeline trains this spec's script, as the run's stage line says it."""
    settings = current_settings()
    cluster = cluster_training.cluster_for(spec.problem.downstream_task.value, spec.dataset.path,
                                           settings.task_runner, settings.cluster_training_rows)
    if cluster is not None:
        return f"on the Dask cluster at {cluster.address}" if cluster.address else "on a local Dask cluster"
    return f"in the sandbox on work pool {training_pool!r}" if training_pool else "in the sandbox"


@task(name="run_pipeline",
      description="The script in the sandbox, Optuna within the budget; here or on a work pool.",
      cache_policy=STAGE_CACHE)
def run_pipeline(run: RunRef, script: PipelineScript, spec: RequirementSpec, attempt: int = 1) -> PipelineResult:
    """The script runs in the sandbox, here or as a flow run on the training pool; whatever it does, this returns a
    result and never hangs."""
    ctx = context.get(run)
    opts = ctx.options
    workdir = attempt_dir(script.path)
    for stale in ("results.json", "model/model.joblib", training.OUTCOME_FILE):
        (workdir / stale).unlink(missing_ok=True)
    timeout_s = opts.budget_s * 2 + 120
    settings = current_settings()
    cluster = cluster_training.cluster_for(spec.problem.downstream_task.value, spec.dataset.path,
                                           settings.task_runner, settings.cluster_training_rows)
    if cluster is not None:
        outcome = _train_on_cluster(ctx, script, cluster, workdir)
    elif opts.training_pool:
        outcome = _train_on_pool(ctx, script, spec, attempt, workdir, timeout_s)
    else:
        data, _ = training.data_snapshot(spec.dataset.path, spec.problem.downstream_task.value)
        outcome = run_script(Path(script.path), workdir, timeout_s=timeout_s, memory_mb=opts.memory_mb,
                             threads=opts.n_jobs, on_line=_progress_printer(ctx), read_only=[data],
                             hide=[ctx.workspace.root])
    log_path = workdir / f"{Path(script.path).stem}.log"
    if log_path.exists():
        ctx.tracker.file(ctx.mlflow_run_id, log_path, "scripts")
    results_path = workdir / "results.json"
    if outcome.returncode == 0 and results_path.exists():
        results = json.loads(results_path.read_text())
        if outcome.peak_memory_mb is not None:  # the sandbox's measure of what the training held at its peak
            results["peak_memory_mb"] = outcome.peak_memory_mb
            results_path.write_text(json.dumps(results, indent=2))
        ctx.tracker.file(ctx.mlflow_run_id, results_path, f"results/v{script.version}")
        return PipelineResult(ok=True, returncode=0, duration_s=outcome.duration_s, log_path=str(log_path),
                              results=results, workdir=str(workdir), sandbox=outcome.isolation)
    why = "timed out" if outcome.timed_out else f"exited with code {outcome.returncode}"
    if outcome.stopped_because and not outcome.timed_out:
        why += f" ({outcome.stopped_because})"
    return PipelineResult(ok=False, returncode=outcome.returncode, duration_s=outcome.duration_s,
                          log_path=str(log_path), error=f"training script {why}:\n{outcome.tail}",
                          workdir=str(workdir), sandbox=outcome.isolation, stopped_because=outcome.stopped_because)


def _train_on_cluster(ctx: context.StageContext, script: PipelineScript, cluster: cluster_training.ClusterTarget,
                      workdir: Path) -> training.TrainingOutcome:
    """The table trains on the Dask cluster with the script's CONFIG (its code is not run: the sandbox that would hold
    it has no network to reach the cluster); a failure comes back as a failed run of the script would."""
    where = cluster.address or "a local Dask cluster"
    log_path = workdir / f"{Path(script.path).stem}.log"
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with log_path.open("w") as log:
        def say(line: str) -> None:
            log.write(line + "\n")
            log.flush()
            ctx.reporter.detail(line)

        say(f"{cluster.rows:,} rows: training on {where} with LightGBM's Dask estimator (the plan's CONFIG from "
            f"{Path(script.path).name}; AUTOML_AGENT_CLUSTER_TRAINING_ROWS={current_settings().cluster_training_rows})")
        try:
            job = cluster_training.job_from_script(Path(script.path), address=cluster.address)
            report = cluster_training.train_on_cluster(job, workdir, on_line=say)
        except Exception as exc:  # noqa: BLE001 - the cluster, the data or the fit: reported as a failed training
            say(f"cluster training failed: {type(exc).__name__}: {exc}")
            return training.TrainingOutcome(returncode=1, duration_s=round(time.perf_counter() - started, 3),
                                            timed_out=False, tail=f"{type(exc).__name__}: {exc}",
                                            isolation="dask cluster")
        say(f"cluster training took {report.total_s:.1f} s ({report.rounds} rounds on {report.n_workers} workers)")
    return training.TrainingOutcome(returncode=0, duration_s=round(time.perf_counter() - started, 3), timed_out=False,
                                    tail="", isolation="dask cluster")


def _train_on_pool(ctx: context.StageContext, script: PipelineScript, spec: RequirementSpec, attempt: int,
                   workdir: Path, timeout_s: float) -> training.TrainingOutcome:
    """Ship the script and the data through MLflow, run the training flow on the pool, bring its outputs back."""
    opts, pool = ctx.options, ctx.options.training_pool
    artifact_path = f"training/v{script.version}-a{attempt}"
    started = time.perf_counter()
    training.upload_inputs(ctx.tracker, ctx.mlflow_run_id, artifact_path, Path(script.path), spec.dataset.path,
                           spec.problem.downstream_task.value)
    job = training.TrainingJob(tracking_uri=ctx.tracker.tracking_uri, mlflow_run_id=ctx.mlflow_run_id,
                               artifact_path=artifact_path, script_name=Path(script.path).name, timeout_s=timeout_s,
                               memory_mb=opts.memory_mb, pool=pool)
    ctx.reporter.detail(f"dispatching to work pool {pool!r} ({training.TRAIN_FLOW}/{pool}); waiting for its worker")
    flow_run_id, state = training.dispatch(job, pool, wait_s=timeout_s + 600)
    try:
        outcome = training.fetch_outputs(ctx.tracker, ctx.mlflow_run_id, artifact_path, workdir)
    except FileNotFoundError as exc:
        return training.TrainingOutcome(returncode=-1, duration_s=round(time.perf_counter() - started, 3),
                                        timed_out=state != "COMPLETED" and state != "FAILED", flow_run_id=flow_run_id,
                                        tail=f"the training flow run {flow_run_id} on pool {pool!r} ended {state} "
                                             f"without outputs ({exc})")
    ctx.reporter.detail(f"trained on {outcome.host} (pid {outcome.pid}) as flow run {flow_run_id}: "
                        f"{outcome.duration_s:.1f} s training, {time.perf_counter() - started:.1f} s in all")
    ctx.workspace.write_json(ctx.run_id, f"training/v{script.version}-a{attempt}.json",
                             {**outcome.model_dump(), "pool": pool, "state": state,
                              "seconds_in_all": round(time.perf_counter() - started, 3)})
    return outcome


@task(name="verify_implementation",
      description="Manager: every constraint against the measured numbers.",
      cache_policy=STAGE_CACHE, retries=2, retry_delay_seconds=2, retry_condition_fn=retry_unless_user_error)
def verify_implementation(run: RunRef, spec: RequirementSpec, result: PipelineResult, version: int) -> ImplementationVerdict:
    ctx = context.get(run)
    verdict = manager.verify_implementation(ctx.brain, spec, result)
    ctx.tracker.json(ctx.mlflow_run_id, verdict.model_dump(), f"verdicts/implementation_v{version}.json")
    return verdict
