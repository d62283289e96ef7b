from __future__ import annotations

import json
from pathlib import Path

from prefect import task

from .. import context
from ..agents import manager, operation_agent
from ..agents.contracts import (
    ImplementationVerdict, PipelineResult, PipelineScript, PlanOutcome, RequirementSpec, attempt_dir,
)
from ..sandbox import run_script
from .common import STAGE_CACHE, retry_unless_user_error


@task(name="write_pipeline", cache_policy=STAGE_CACHE, retries=2, retry_delay_seconds=2, retry_condition_fn=retry_unless_user_error)
def write_pipeline(run_id: str, spec: RequirementSpec, outcome: PlanOutcome, version: int, previous_error: str,
                   attempt: int = 1, force_skeleton: bool = False) -> tuple[PipelineScript, list[str]]:
    """The operation agent's script for this version and code attempt, and the static problems of the brain's code
    (when there are any the script is the rendered skeleton and the problems are feedback for the next attempt)."""
    ctx = context.get(run_id)
    opts = ctx.options
    config = operation_agent.build_config(spec, outcome, budget_s=opts.budget_s, n_jobs=opts.n_jobs, seed=opts.seed)
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


def _progress_printer(ctx: context.RunContext):
    def on_line(line: str) -> None:
        if line.startswith("PROGRESS "):
            p = json.loads(line[9:])
            ctx.reporter.detail(f"trial {p['trial']:>3}  {p['model']:<24} {p['value']:.4f}  best {p['best']:.4f}  ({p['elapsed_s']:.0f} s)")
    return on_line


@task(name="run_pipeline", cache_policy=STAGE_CACHE)
def run_pipeline(run_id: str, script: PipelineScript) -> PipelineResult:
    """The script runs in the sandbox; whatever it does, this returns a result and never hangs."""
    ctx = context.get(run_id)
    opts = ctx.options
    workdir = attempt_dir(script.path)
    for stale in ("results.json", "model/model.joblib"):
        (workdir / stale).unlink(missing_ok=True)
    outcome = run_script(Path(script.path), workdir, timeout_s=opts.budget_s * 2 + 120, memory_mb=opts.memory_mb,
                         threads=opts.n_jobs, on_line=_progress_printer(ctx))
    ctx.tracker.file(ctx.mlflow_run_id, outcome.log_path, "scripts")
    results_path = workdir / "results.json"
    if outcome.returncode == 0 and results_path.exists():
        results = json.loads(results_path.read_text())
        ctx.tracker.file(ctx.mlflow_run_id, results_path, f"results/v{script.version}")
        return PipelineResult(ok=True, returncode=0, duration_s=outcome.duration_s, log_path=str(outcome.log_path),
                              results=results, workdir=str(workdir))
    why = "timed out" if outcome.timed_out else f"exited with code {outcome.returncode}"
    return PipelineResult(ok=False, returncode=outcome.returncode, duration_s=outcome.duration_s,
                          log_path=str(outcome.log_path), error=f"training script {why}:\n{outcome.tail}",
                          workdir=str(workdir))


@task(name="verify_implementation", cache_policy=STAGE_CACHE, retries=2, retry_delay_seconds=2, retry_condition_fn=retry_unless_user_error)
def verify_implementation(run_id: str, spec: RequirementSpec, result: PipelineResult, version: int) -> ImplementationVerdict:
    ctx = context.get(run_id)
    verdict = manager.verify_implementation(ctx.brain, spec, result)
    ctx.tracker.json(ctx.mlflow_run_id, verdict.model_dump(), f"verdicts/implementation_v{version}.json")
    return verdict
