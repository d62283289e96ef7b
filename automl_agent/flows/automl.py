"""The automl flow: the paper's Algorithm 1 as a Prefect flow (INIT, PLAN, EXECUTE, IMPLEMENT, DELIVER)."""

from __future__ import annotations

import json
import time
import traceback
import warnings
from typing import Any, Optional

from prefect import flow
from prefect.exceptions import TerminationSignal
from pydantic import Field

from .. import context
from ..agents.brains.pricing import reference_cost_usd
from ..config import current_settings
from ..console import Reporter
from ..data.finder import find_and_snapshot, resolve_reference
from ..data.inputs import is_url, localize
from ..errors import InputsUnclear, TargetUnclear, UserFacingError
from .. import sandbox
from ..training import chosen_pool
from .. import prompt_registry
from ..platform.home import user_home
from ..settings import RunOptions, configure_environment
from ..retrieval import parse_selection
from ..tasks import delivery
from ..platform.tracking import Tracker
from ..workspace import (DataSource, LLMUsage, OpenQuestion, RunRecord, Workspace,
                         new_run_id)
from . import phases
from .questions import MAX_QUESTIONS, answered
from .task_runners import ConfiguredTaskRunner

def open_run(options: RunOptions, reporter: Reporter) -> context.StageContext:
    """The run's serializable reference (MLflow parent run created, or reused when resuming) and its context."""
    run_id = options.run_id or new_run_id()
    options = options.model_copy(update={"run_id": run_id})
    tracking_uri = options.resolved_tracking_uri
    tracker = Tracker.for_workspace(tracking_uri, context.EXPERIMENT, options.workdir_path)
    previous = Workspace(options.workdir_path).run_dir(run_id) / "run.json"
    mlflow_run_id = None
    if previous.exists():  # resuming: keep the same MLflow parent run
        mlflow_run_id = json.loads(previous.read_text()).get("mlflow_run_id")
    if not mlflow_run_id:
        mlflow_run_id = tracker.start(f"automl-{run_id}", {"automl_agent.run_id": run_id})
    ref = context.RunRef(run_id=run_id, options=options, tracking_uri=tracking_uri,
                         experiment_id=tracker.experiment_id, mlflow_run_id=mlflow_run_id)
    context.attach_reporter(run_id, reporter)
    return context.get(ref)


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


@flow(name="automl-agent", task_runner=ConfiguredTaskRunner(), log_prints=False, persist_result=True)
def run(
    instruction: str = Field(description="The task in one sentence, with any constraints, e.g. 'Predict churn; F1 at "
                                         "least 0.6, under 10 ms per prediction'."),
    data: Optional[str] = Field(default=None, description="Path (on the worker) or URL (http, https, s3, ...) of a "
                                                         "CSV/Parquet table or a graph folder; openml://ID, hf://OWNER/NAME "
                                                         "or kaggle://OWNER/DATASET; empty: the dataset the instruction names."),
    target: Optional[str] = Field(default=None, description="The column to predict; empty: inferred."),
    budget: float = Field(default=60.0, gt=0, description="Seconds for the training script's search and final fit."),
    llm: str = Field(default="offline", description="Brain: offline, openai:MODEL or gguf:PATH."),
    plans: int = Field(default=3, ge=1, le=8, description="Plans executed in parallel."),
    training_pool: Optional[str] = Field(default=None, description="Work pool that trains the script (e.g. gpu); "
                                                                   "empty: in this flow run's process."),
    model_name: Optional[str] = Field(default=None, description="Registered model name; empty: DATA-TASK. A new "
                                                               "version takes @champion only if it scores at least "
                                                               "as well on the same held-out rows."),
    allow_schema_change: bool = Field(default=False, description="Let a version whose input columns differ from the "
                                                                 "champion's take @champion."),
    retrieval: Optional[str] = Field(default=None, description="Knowledge sources for planning: auto, none, or a list "
                                                              "of arxiv,kaggle,hf,web,openml; empty: the worker's "
                                                              "AUTOML_AGENT_RETRIEVAL, else auto."),
) -> RunRecord:
    """An automl-agent run started from the Prefect UI, the API or a schedule (deployment `automl-agent/run`)."""
    from prefect import get_run_logger

    options = RunOptions(instruction=instruction, data_path=data or None, target=target or None, budget_s=budget, llm=llm,
                         n_plans=plans, training_pool=chosen_pool(training_pool),
                         model_name=model_name or None,
                         allow_schema_change=allow_schema_change, **({"retrieval": retrieval} if retrieval else {}),
                         workdir=current_settings().workdir or str(user_home() / "workspace"),
                         run_id=new_run_id())
    configure_environment(options.workdir_path)
    record = run_automl(options, Reporter(quiet=True, logger=get_run_logger()))
    for asked in range(MAX_QUESTIONS):  # the CLI exits 2 with the question; a deployment run pauses for the answer
        if record.question is None:
            break
        options = answered(record, options, key=f"question-{asked + 1}")
        record = run_automl(options, Reporter(quiet=True, logger=get_run_logger()))
    if record.status != "succeeded":
        raise RuntimeError(f"automl-agent run {record.run_id} {record.status}: {record.message}")
    return record


def run_automl(options: RunOptions, reporter: Reporter) -> RunRecord:
    warnings.filterwarnings("ignore", module=r"mlflow\..*")
    warnings.filterwarnings("ignore", category=FutureWarning)
    started = time.perf_counter()
    ctx = open_run(options, reporter)
    ctx.run_dir.mkdir(parents=True, exist_ok=True)  # the record and report of a run that fails at once need it too
    record = RunRecord(run_id=ctx.run_id, instruction=options.instruction, data_path=options.data_path or "",
                       mlflow_tracking_uri=ctx.tracker.tracking_uri, mlflow_run_id=ctx.mlflow_run_id,
                       llm=LLMUsage(backend=ctx.brain.name), training_pool=options.training_pool)
    record.prefect_flow_run_id, record.prefect_ui_url = _prefect_links()
    results: dict[str, Any] = {}
    try:
        record.data_path, record.data_source = _resolve_data(ctx, options)
        ctx = context.get(ctx.ref.model_copy(update={"options": ctx.options.model_copy(
            update={"data_path": record.data_path})}))
        record.llm.prompt_versions, record.llm.prompt_aliases, refused = prompt_registry.resolve_for_run(
            ctx.options.workdir_path, ctx.tracker.tracking_uri, ctx.run_dir)
        record.warnings += refused
        for name, alias in record.llm.prompt_aliases.items():
            ctx.reporter.always(f"prompt {name}: version {record.llm.prompt_versions[name]} (@{alias} in the registry)")
        ctx.tracker.tags(ctx.mlflow_run_id, {f"prompt.{name}": v for name, v in record.llm.prompt_versions.items()})
        ctx.workspace.save(record)
        ctx.tracker.text(ctx.mlflow_run_id, options.instruction, "instruction.txt")
        ctx.tracker.params(ctx.mlflow_run_id, {"llm": options.llm, "budget_s": options.budget_s,
                                               "n_plans": options.n_plans, "top_k": options.top_k,
                                               "data_path": record.data_path,
                                               "training_pool": options.training_pool or "local"})
        results = _run_stages(ctx, record)
    except (TargetUnclear, InputsUnclear) as exc:
        record.status, record.message = exc.status, str(exc)
        record.question = OpenQuestion(kind="target" if isinstance(exc, TargetUnclear) else "inputs",
                                       question=exc.problem, candidates=getattr(exc, "candidates", []), hint=exc.hint)
    except UserFacingError as exc:
        record.status, record.message = exc.status, str(exc)
    except (KeyboardInterrupt, TerminationSignal):  # Ctrl-C or SIGTERM: the record says so, then it ends
        sandbox.stop_running()  # the training runs in a session of its own, which the signal did not reach
        record.status = "interrupted"
        record.message = ("stopped by Ctrl-C or SIGTERM: the training was stopped and nothing was registered after "
                          "that; rerun with the same --run-id to resume from the finished stages")
        raise
    except Exception as exc:  # the record is kept and the user told where the details are, never a bare traceback
        log = ctx.run_dir / "error.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(traceback.format_exc())
        record.status = "failed"
        record.message = f"internal error ({type(exc).__name__}: {exc}); details in {log}"
    finally:
        record.timings = dict(reporter.timings)
        record.timings["total"] = round(time.perf_counter() - started, 3)
        record.llm = _llm_usage(ctx, record.llm.prompt_versions, record.llm.prompt_aliases)
        context.close_brains()
        if record.status == "interrupted":
            ctx.workspace.save(record)  # first: a second Ctrl-C during the bookkeeping below must not lose it
        _finish(ctx, record, results)
    return record


def _resolve_data(ctx: context.StageContext, options: RunOptions) -> tuple[str, DataSource | None]:
    """A local path for the run's data, and where it came from when it was fetched or found."""
    data = options.data_path
    if not data:
        with ctx.reporter.stage("find_data", "INIT: no --data given; looking for the dataset the instruction names"):
            path, source = find_and_snapshot(options.instruction, ctx.run_dir,
                                             allow_remote=parse_selection(options.retrieval) != [])
    else:
        found = resolve_reference(data, ctx.run_dir)
        if found is None:
            path = localize(data, ctx.run_dir)
            return path, (DataSource.model_validate(data) if is_url(data) else None)
        path, source = found
    rows = f", {source.rows} rows" if source.rows else ""
    ctx.reporter.always(f"data: {source.name} from {source.source} (licence {source.licence}{rows}); {source.reason}; "
                        f"snapshot {path}")
    ctx.tracker.json(ctx.mlflow_run_id, source.model_dump(), "data_source.json")
    return path, source


def _llm_usage(ctx: context.StageContext, prompt_versions: dict[str, str], prompt_aliases: dict[str, str]) -> LLMUsage:
    from ..agents.brains.factory import LLM_KINDS

    totals = ctx.transcript.totals()
    by_step = ctx.transcript.by_step()
    llm_calls = [r for r in ctx.transcript.all_records() if r.brain.partition(":")[0] in LLM_KINDS]
    costs = [row["cost_usd"] for row in by_step.values()]
    return LLMUsage(
        backend=ctx.brain.name, calls=totals["calls"], prompt_tokens=totals["prompt_tokens"],
        completion_tokens=totals["completion_tokens"], tokens=totals["prompt_tokens"] + totals["completion_tokens"],
        cost_usd=None if any(c is None for c in costs) else round(sum(costs), 6),
        cost_at_reference_usd=round(reference_cost_usd(totals["prompt_tokens"], totals["completion_tokens"]), 6),
        repair_prompt_tokens=totals["repair_prompt_tokens"], repair_completion_tokens=totals["repair_completion_tokens"],
        first_try_cost_at_reference_usd=round(reference_cost_usd(
            totals["prompt_tokens"] - totals["repair_prompt_tokens"],
            totals["completion_tokens"] - totals["repair_completion_tokens"]), 6),
        by_step=by_step, offline_fallbacks=ctx.transcript.fallbacks(), prompt_versions=prompt_versions,
        prompt_aliases=prompt_aliases,
        llm_answered=sum(1 for r in llm_calls if not r.fallback), rules_answered=sum(1 for r in llm_calls if r.fallback),
        reasoning_tokens=totals["reasoning_tokens"], server_adjustments=ctx.transcript.learned(),
        max_tokens_per_run=ctx.options.max_tokens_per_run)


def _prefect_links() -> tuple[str | None, str | None]:
    """This flow run's id, and its page in the Prefect UI when a real server (not an ephemeral one) serves the API."""
    from prefect.runtime import flow_run
    from prefect.settings import get_current_settings

    run_id = flow_run.id
    api_url = get_current_settings().api.url
    if not run_id or not api_url:
        return run_id, None
    return run_id, f"{api_url.rstrip('/').removesuffix('/api')}/runs/flow-run/{run_id}"


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
        verdict = attempt.verdict
        feedback = verdict.reason + (f" Manager: {verdict.manager_opinion}" if verdict.manager_opinion else "")
        previous_error = attempt.result.error
    if best is None:
        raise RuntimeError("no implementation was attempted: max_revisions must be at least 0")
    return phases.deliver(ctx, record, spec, best)


def _finish(ctx: context.StageContext, record: RunRecord, results: dict[str, Any]) -> None:
    if record.status == "interrupted":  # the user asked to stop: say so in MLflow and go, no report or traces
        try:
            ctx.tracker.tags(ctx.mlflow_run_id, {"status": record.status, "task_type": record.task_type or ""})
            ctx.tracker.json(ctx.mlflow_run_id, record.model_dump(mode="json"), "run.json")
            ctx.tracker.finish(ctx.mlflow_run_id, ok=False)
        finally:
            ctx.workspace.save(record)
            context.detach(ctx.run_id)
        return
    try:
        ctx.tracker.transcript(ctx.mlflow_run_id, ctx.transcript)
        ctx.tracker.trace_calls(ctx.mlflow_run_id, ctx.transcript, f"automl-{ctx.run_id} agent calls")
        ctx.tracker.metrics(ctx.mlflow_run_id, {"llm_calls": record.llm.calls, "llm_tokens": record.llm.tokens,
                                                "llm_cost_at_gpt4o_usd": record.llm.cost_at_reference_usd})
        ctx.tracker.tags(ctx.mlflow_run_id, {"status": record.status, "task_type": record.task_type or ""})
        ctx.tracker.metrics(ctx.mlflow_run_id, {"success_score": record.success_score})
        record.report_path = delivery.report(ctx.ref, record.model_dump_json(), results)
        ctx.tracker.json(ctx.mlflow_run_id, record.model_dump(mode="json"), "run.json")
        ctx.tracker.finish(ctx.mlflow_run_id, ok=record.status in {"succeeded", "planned"})
    finally:
        ctx.workspace.save(record)
        context.detach(ctx.run_id)
