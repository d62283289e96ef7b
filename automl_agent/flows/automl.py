"""The automl flow: the paper's Algorithm 1 as a Prefect flow (INIT, PLAN, EXECUTE, IMPLEMENT, DELIVER)."""

from __future__ import annotations

import time
import traceback
import warnings
from typing import Any, Optional

from prefect import flow
from prefect.exceptions import TerminationSignal
from pydantic import Field

from .. import context
from ..config import current_settings
from ..console import Reporter
from ..errors import Question, UserFacingError
from .. import sandbox
from ..training import chosen_pool
from ..platform.home import user_home
from ..settings import RunOptions, configure_environment
from ..workspace import LLMUsage, OpenQuestion, RunRecord, new_run_id
from . import lifecycle, phases
from .questions import MAX_QUESTIONS, answered
from .task_runners import ConfiguredTaskRunner


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
    ctx = lifecycle.open_run(options, reporter)
    ctx.run_dir.mkdir(parents=True, exist_ok=True)  # the record and report of a run that fails at once need it too
    record = RunRecord(run_id=ctx.run_id, instruction=options.instruction, data_path=options.data_path or "",
                       mlflow_tracking_uri=ctx.tracker.tracking_uri, mlflow_run_id=ctx.mlflow_run_id,
                       llm=LLMUsage(backend=ctx.brain.name), training_pool=options.training_pool)
    record.prefect_flow_run_id, record.prefect_ui_url = lifecycle.prefect_links()
    results: dict[str, Any] = {}
    try:
        ctx = lifecycle.begin(ctx, record)
        results = _run_stages(ctx, record)
    except Question as exc:
        record.status, record.message = exc.status, str(exc)
        record.question = OpenQuestion(kind=exc.kind, question=exc.problem, candidates=list(exc.candidates),
                                       hint=exc.hint)
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
        record.llm = lifecycle.llm_usage(ctx, record.llm.prompt_versions, record.llm.prompt_aliases)
        context.close_brains()
        if record.status == "interrupted":
            ctx.workspace.save(record)  # first: a second Ctrl-C during the bookkeeping below must not lose it
        lifecycle.finish(ctx, record, results)
    return record


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


