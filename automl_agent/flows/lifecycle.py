"""A run's beginning and end around the paper's phases: its MLflow parent run opened (or reused when resuming), the
data resolved and the prompts' versions recorded; at the end, whatever happened, the LLM usage counted, the report
written and the record saved in the workspace and in MLflow."""

from __future__ import annotations

import json
import time
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from prefect.exceptions import TerminationSignal

from .. import context, sandbox
from ..agents.brains.pricing import reference_cost_usd
from ..console import Reporter
from ..data.finder import find_and_snapshot, resolve_reference
from ..errors import Question, UserFacingError
from ..data.inputs import is_url, localize
from .. import prompt_registry
from ..settings import RunOptions
from ..retrieval import parse_selection
from ..tasks import delivery
from ..platform.tracking import Tracker
from ..workspace import DataSource, LLMUsage, OpenQuestion, RunRecord, Workspace, new_run_id


def open_run(options: RunOptions, reporter: Reporter) -> tuple[context.StageContext, RunRecord]:
    """The run's context, from its serializable reference (MLflow parent run created, or reused when resuming), and
    its record, with the run folder that a run failing at once needs too."""
    warnings.filterwarnings("ignore", module=r"mlflow\..*")
    warnings.filterwarnings("ignore", category=FutureWarning)
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
    ctx = context.get(ref)
    ctx.run_dir.mkdir(parents=True, exist_ok=True)
    record = RunRecord(run_id=ctx.run_id, instruction=options.instruction, data_path=options.data_path or "",
                       mlflow_tracking_uri=ctx.tracker.tracking_uri, mlflow_run_id=ctx.mlflow_run_id,
                       llm=LLMUsage(backend=ctx.brain.name), training_pool=options.training_pool)
    record.prefect_flow_run_id, record.prefect_ui_url = prefect_links()
    return ctx, record


def begin(ctx: context.StageContext, record: RunRecord) -> context.StageContext:
    """The run's data resolved (found, fetched or given), its prompts' versions taken from the registry, and what it
    starts from written to MLflow; returns the context with the data path settled."""
    options = ctx.options
    record.data_path, record.data_source = resolve_data(ctx, options)
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
    return ctx


def resolve_data(ctx: context.StageContext, options: RunOptions) -> tuple[str, DataSource | None]:
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


def llm_usage(ctx: context.StageContext, prompt_versions: dict[str, str], prompt_aliases: dict[str, str]) -> LLMUsage:
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


def prefect_links() -> tuple[str | None, str | None]:
    """This flow run's id, and its page in the Prefect UI when a real server (not an ephemeral one) serves the API."""
    from prefect.runtime import flow_run
    from prefect.settings import get_current_settings

    run_id = flow_run.id
    api_url = get_current_settings().api.url
    if not run_id or not api_url:
        return run_id, None
    return run_id, f"{api_url.rstrip('/').removesuffix('/api')}/runs/flow-run/{run_id}"


def finish(ctx: context.StageContext, record: RunRecord, results: dict[str, Any]) -> None:
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


@dataclass
class RunInProgress:
    """What the body of `recorded` leaves for the run's close: its context as the phases left it (the data path
    settled), and what DELIVER returned."""
    ctx: context.StageContext
    results: dict[str, Any] = field(default_factory=dict)


@contextmanager
def recorded(ctx: context.StageContext, record: RunRecord, started: float) -> Iterator[RunInProgress]:
    """Whatever happens inside, the run ends with its record said and saved: a question or a refusal in the record
    (the CLI exits 2 with it), Ctrl-C or SIGTERM recorded before it goes on, any other error written to error.log and
    reported in one line, never a bare traceback; then the timings, the LLM usage and the closing writes (finish)."""
    run = RunInProgress(ctx)
    try:
        yield run
    except Question as exc:
        record.status, record.message = exc.status, str(exc)
        record.question = OpenQuestion(kind=exc.kind, question=exc.problem, candidates=list(exc.candidates),
                                       hint=exc.hint)
    except UserFacingError as exc:
        record.status, record.message = exc.status, str(exc)
    except (KeyboardInterrupt, TerminationSignal):
        sandbox.stop_running()  # the training runs in a session of its own, which the signal did not reach
        record.status = "interrupted"
        record.message = ("stopped by Ctrl-C or SIGTERM: the training was stopped and nothing was registered after "
                          "that; rerun with the same --run-id to resume from the finished stages")
        raise
    except Exception as exc:
        log = run.ctx.run_dir / "error.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(traceback.format_exc())
        record.status = "failed"
        record.message = f"internal error ({type(exc).__name__}: {exc}); details in {log}"
    finally:
        record.timings = dict(run.ctx.reporter.timings)
        record.timings["total"] = round(time.perf_counter() - started, 3)
        record.llm = llm_usage(run.ctx, record.llm.prompt_versions, record.llm.prompt_aliases)
        context.close_brains()
        if record.status == "interrupted":
            run.ctx.workspace.save(record)  # first: a second Ctrl-C during the bookkeeping below must not lose it
        finish(run.ctx, record, run.results)
