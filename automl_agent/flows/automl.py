"""The automl flow: the paper's Algorithm 1 as a Prefect flow (INIT, PLAN, EXECUTE, IMPLEMENT, DELIVER)."""

from __future__ import annotations

import json
import os
import time
import traceback
import warnings
from pathlib import Path
from typing import Any, Optional

from prefect import flow, unmapped
from prefect.exceptions import TerminationSignal
from prefect.futures import as_completed
from prefect.task_runners import ThreadPoolTaskRunner
from pydantic import Field

from .. import context
from ..agents import operation_agent
from ..agents.brains.pricing import reference_cost_usd
from ..agents.feasibility import check_feasible
from ..agents.contracts import (CLASSIFICATION_TASKS, ImplementationVerdict, PipelineResult, PipelineScript,
                                RequirementSpec, TaskType)
from ..config import current_settings
from ..console import Reporter
from ..data.finder import find_and_snapshot, resolve_reference
from ..data.inputs import is_url, localize, read_input
from ..data import sanity, snapshot
from ..data.profile import class_balance
from ..errors import InputsUnclear, TargetUnclear, UserFacingError
from .. import sandbox
from ..sandbox import isolation_summary
from ..scoring import success_score
from ..training import chosen_pool
from .. import prompt_registry
from ..home import user_home
from ..settings import RunOptions, configure_environment
from ..retrieval import DataShape, parse_selection
from ..tasks.common import call_stage
from ..tasks import delivery, execution, implementation, parsing, planning, request, retrieval
from ..tracking import Tracker
from ..workspace import (ConstraintRecord, DataSource, LLMUsage, OpenQuestion, PlanRecord, RunRecord, Workspace,
                         new_run_id)
from .questions import MAX_QUESTIONS, answered

# image tables point at files beside them and graphs are folders: those are read where they lie
SNAPSHOT_SKIPPED = {TaskType.image_classification, TaskType.node_classification}
# tasks whose model learns from input columns (a forecast may have none besides its series)
INPUT_TASKS = {TaskType.tabular_classification, TaskType.tabular_regression, TaskType.tabular_clustering,
               TaskType.text_classification}


class Attempt:
    """One implementation attempt and how good it was, so the best one ships when none passes."""

    def __init__(self, version: int, script: PipelineScript, result: PipelineResult, verdict: ImplementationVerdict,
                 plan_title: str):
        self.version, self.script, self.result, self.verdict, self.plan_title = version, script, result, verdict, plan_title

    def rank(self, spec: RequirementSpec) -> tuple:
        value = self.result.results.get("primary_metric")
        value = float("-inf") if value is None else (value if spec.problem.metric_direction == "maximize" else -value)
        return (self.result.ok, sum(c.satisfied for c in self.verdict.checks), value)


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


def make_task_runner():
    """The task runner for the mapped plans: threads in the flow's process (default), or Dask when
    AUTOML_AGENT_TASK_RUNNER is `dask` (a local cluster of worker processes) or `dask:ADDRESS` (a running cluster)."""
    configured = current_settings().task_runner
    setting = "threads" if configured is None else configured  # set but empty: an error, as ever
    if setting == "threads":
        return ThreadPoolTaskRunner(max_workers=4)
    if setting == "dask" or setting.startswith("dask:"):
        import logging

        from prefect_dask import DaskTaskRunner

        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # the cluster's chatter is not the user's news
        logging.getLogger("distributed").setLevel(logging.WARNING)

        address = setting.partition(":")[2]
        if address:
            return DaskTaskRunner(address=address)
        return DaskTaskRunner(cluster_kwargs={"n_workers": 2, "threads_per_worker": 1, "processes": True,
                                             "dashboard_address": None})
    raise UserFacingError(f"Unknown AUTOML_AGENT_TASK_RUNNER {setting!r}.",
                          "Use 'threads' (default), 'dask' (a local Dask cluster) or 'dask:tcp://HOST:PORT'.")


@flow(name="automl-agent", flow_run_name="automl-{options.run_id}", task_runner=ThreadPoolTaskRunner(max_workers=4),
      log_prints=False, persist_result=True)
def automl_flow(options: RunOptions) -> RunRecord:
    """The CLI's entry: typed options; progress goes to the reporter the caller attached for this run id (a flow
    parameter must be serializable: a terminal stream is not)."""
    from prefect import get_run_logger

    reporter = context.attached_reporter(options.run_id or "") or Reporter()
    if reporter.logger is None:  # the stage lines go to the Prefect UI too, at INFO
        reporter.logger = get_run_logger()
    return run_automl(options, reporter)


@flow(name="automl-agent", task_runner=make_task_runner(), log_prints=False, persist_result=True)
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


def data_shape(profile, spec: RequirementSpec) -> DataShape:
    if profile.graph is not None:
        return DataShape(rows=profile.graph.n_nodes, columns=profile.graph.n_features, classes=profile.graph.n_classes)
    classes = len(profile.class_balance) if profile.class_balance else None
    return DataShape(rows=profile.n_rows, columns=max(0, profile.n_columns - (1 if spec.dataset.target else 0)),
                     classes=classes)


def _note_resumed(ctx: context.StageContext, record: RunRecord, stage_name: str) -> None:
    record.resumed_stages.append(stage_name)
    ctx.reporter.detail(f"{stage_name}: resumed from the finished stage of an earlier attempt of this run")


def _check_and_snapshot(ctx: context.StageContext, record: RunRecord, frame, profile, spec: RequirementSpec):
    """The target and leakage rules on the table as read, then the run's snapshot that every later stage reads."""
    classification = spec.problem.downstream_task in CLASSIFICATION_TASKS
    compared_only = spec.problem.downstream_task == TaskType.tabular_clustering  # its label is never an input
    frame, checks = sanity.check(frame, None if compared_only else spec.dataset.target, classification,
                                 spec.dataset.features or None, Path(record.data_path).name)
    for note in checks.notes:
        record.data_notes.append(note)
        ctx.reporter.always(f"data: {note}")
    if spec.problem.downstream_task in INPUT_TASKS:
        kinds_learned_from = {"numeric", "categorical", "boolean"} | (
            {"text"} if spec.problem.downstream_task == TaskType.text_classification else set())
        usable = [c.name for c in profile.columns if c.kind in kinds_learned_from and c.name != spec.dataset.target
                  and c.name not in checks.left_out and c.name not in spec.dataset.excluded
                  and (not spec.dataset.features or c.name in spec.dataset.features)]
        sanity.require_inputs(usable, spec.dataset.target, Path(record.data_path).name, checks.left_out)
    path = snapshot.write(frame, profile.reading, checks, ctx.run_dir, Path(record.data_path).stem)
    record.data_snapshot = str(path)
    ctx.tracker.json(ctx.mlflow_run_id, {"reading": profile.reading.model_dump(), "checks": checks.model_dump()},
                     "data/reading.json")
    dataset = spec.dataset.model_copy(update={"path": str(path), "left_out": {**spec.dataset.left_out, **checks.left_out}})
    return frame, spec.model_copy(update={"dataset": dataset})


def _run_stages(ctx: context.StageContext, record: RunRecord) -> dict[str, Any]:
    opts, say, stage = ctx.options, ctx.reporter.detail, ctx.reporter.stage
    run = ctx.ref

    def stage_call(task, *args):
        value, cached = call_stage(task, *args)
        if cached:
            _note_resumed(ctx, record, task.name)
        return value

    with stage("request", "INIT: reading data and verifying the request"):
        frame, profile = read_input(opts.data_path, record.data_path)
        if record.data_source is not None and record.data_source.source != "url":  # a dataset found or referenced
            ctx.tracker.dataset_input(ctx.mlflow_run_id, frame, record.data_path, record.data_source.name)
        verdict = stage_call(request.verify_request, run, opts.instruction, profile)
        if not verdict.ok:
            raise UserFacingError(f"Request not accepted: {verdict.feedback}",
                                  "Rephrase the instruction as a machine-learning task on this data.", status="rejected")
        shape = (f"graph of {profile.graph.n_nodes} nodes, {profile.graph.n_edges} edges" if profile.graph
                 else f"{profile.n_rows} rows x {profile.n_columns} columns")
        say(f"{shape}; request accepted")
        if profile.reading is not None:
            record.data_reading = profile.reading.summary()
            say(f"data: read as {record.data_reading}")
            for note in profile.reading.notes:
                record.data_notes.append(note)
                ctx.reporter.always(f"data: {note}")

    with stage("parse", "INIT: parsing the instruction into a requirement spec"):
        spec, corrections = stage_call(parsing.parse_instruction, run, opts.instruction, profile, opts.target)
        if spec.dataset.target and spec.problem.downstream_task in CLASSIFICATION_TASKS:
            profile = profile.model_copy(update={"class_balance": class_balance(frame, spec.dataset.target)})
        record.task_type, record.target, record.metric = spec.problem.downstream_task.value, spec.dataset.target, spec.problem.metric
        record.target_reason = spec.dataset.target_reason if spec.dataset.target else None
        record.audit = spec.audit
        record.corrections = corrections
        say(f"task {record.task_type}; target {record.target!r}; metric {spec.problem.metric} ({spec.problem.metric_direction})")
        if spec.dataset.target and spec.dataset.target_reason:
            say(f"target {spec.dataset.target!r}: {spec.dataset.target_reason}")
        for c in spec.problem.constraints:
            say(f"constraint: {c.describe()}")
        for note in corrections:
            say(f"cross-check: {note}")
        if profile.reading is not None and spec.problem.downstream_task not in SNAPSHOT_SKIPPED:
            frame, spec = _check_and_snapshot(ctx, record, frame, profile, spec)
        for note in check_feasible(spec, frame, spec.dataset.path, opts.instruction):
            say(f"data: {note}")
    ctx.workspace.save(record)

    with stage("retrieve", "PLAN: retrieving knowledge"):
        knowledge = stage_call(retrieval.retrieve_knowledge, run, spec, data_shape(profile, spec))
        record.retrieval = knowledge.sources
        for report in knowledge.sources:
            say(f"retrieval {report.line()}")
        if knowledge.family_priors:
            say("retrieved priors: " + ", ".join(f"{k} {v:.2f}" for k, v in knowledge.family_priors.items()))

    best: Attempt | None = None
    feedback, previous_error = "", ""
    for revision in range(opts.max_revisions + 1):
        if revision:
            say(f"revision {revision}: {feedback[:200]}")
        with stage("plan", f"PLAN: devising {opts.n_plans} plans"):
            plans = stage_call(planning.make_plans, run, spec, knowledge, opts.n_plans, feedback, revision)
            for p in plans:
                say(f"plan {p.plan_id}: {p.title} [{', '.join(p.model_families)}]")
        if revision == 0:
            record.plans = [PlanRecord(**p.model_dump(include=set(PlanRecord.model_fields))) for p in plans]
            record.constraints = [ConstraintRecord(name=c.name, op=c.op, target=c.target)
                                  for c in spec.problem.constraints]
        if opts.dry_run:
            record.status, record.message = "planned", "dry run: stopped after PLAN, nothing trained"
            return {}
        with stage("execute", f"EXECUTE: data and model agents on {len(plans)} plans in parallel"):
            futures = execution.execute_plan.map(unmapped(run), plans, spec=unmapped(spec), profile=unmapped(profile),
                                                 top_k=unmapped(opts.top_k), revision=unmapped(revision))
            ctx.reporter.parts([f"plan {p.plan_id}" for p in plans])
            for future in as_completed(futures):  # each plan as it finishes; the live panel shows the others running
                o = future.result()
                ctx.reporter.part_done(f"plan {o.plan.plan_id}")
                say(f"plan {o.plan.plan_id}: {o.data.summary}; candidates {[c.model for c in o.model.candidates]}")
            outcomes = [f.result() for f in futures]
            if all(f.state.name == "Cached" for f in futures):
                _note_resumed(ctx, record, execution.execute_plan.name)
        with stage("verify_execution", "EXECUTE: verifying plan outcomes"):
            exec_verdict = stage_call(execution.verify_execution, run, spec, outcomes, revision)
            chosen = next(o for o in outcomes if o.plan.plan_id == exec_verdict.best_plan_id)
            say(f"chosen plan {chosen.plan.plan_id}: {exec_verdict.reason}")
            record.chosen_reason = exec_verdict.reason
        version = revision + 1
        script, result = _implement(ctx, spec, chosen, version, previous_error, stage_call)
        if not record.sandbox and result.sandbox:
            record.sandbox = (f"{result.sandbox} (on work pool {opts.training_pool!r})" if opts.training_pool
                              else isolation_summary())
            say(f"sandbox: {record.sandbox}")
        with stage("verify_implementation", "IMPLEMENT: verifying against the requirements"):
            imp_verdict = stage_call(implementation.verify_implementation, run, spec, result, version)
            say(("PASS: " if imp_verdict.passed else "FAIL: ") + imp_verdict.reason)
        attempt = Attempt(version, script, result, imp_verdict, chosen.plan.title)
        if best is None or attempt.rank(spec) > best.rank(spec):
            best = attempt
        record.revisions = revision
        if imp_verdict.passed:
            break
        feedback = imp_verdict.reason + (f" Manager: {imp_verdict.manager_opinion}" if imp_verdict.manager_opinion else "")
        previous_error = result.error
    assert best is not None
    return _deliver(ctx, record, spec, best)


def _implement(ctx: context.StageContext, spec: RequirementSpec, chosen, version: int, previous_error: str,
               stage_call) -> tuple[PipelineScript, PipelineResult]:
    """The operation agent writes the script and the sandbox runs it. An LLM author gets up to --code-attempts tries,
    each fed the previous static problems or error log; when all fail, the skeleton renderer's script runs."""
    opts, say, stage, run = ctx.options, ctx.reporter.detail, ctx.reporter.stage, ctx.ref
    attempts = opts.code_attempts if operation_agent.writes_code(ctx.brain) else 1
    error = previous_error
    script: PipelineScript | None = None
    result: PipelineResult | None = None
    for attempt in range(1, attempts + 2):
        fallback = attempt > attempts
        if fallback and script is not None and script.author == operation_agent.SKELETON_AUTHOR:
            break  # the last attempt already ran the skeleton's script
        label = "skeleton renderer (every code attempt failed)" if fallback else f"attempt {attempt}/{attempts}"
        with stage("write_pipeline", f"IMPLEMENT: operation agent writing the training script ({label})"):
            script, problems = stage_call(implementation.write_pipeline, run, spec, chosen, version, error, attempt,
                                          fallback)
            say(f"{script.path} (by {script.author})")
        if problems and attempt < attempts:
            error = "The script was rejected before running: " + "; ".join(problems)
            continue
        with stage("train", f"IMPLEMENT: training in the sandbox (HPO budget {opts.budget_s:.0f} s)"):
            result = stage_call(implementation.run_pipeline, run, script, spec, attempt)
            if result.ok:
                r = result.results
                say(f"{r['best_model']}: test {spec.problem.metric} = {r['primary_metric']:.4f} after {r['n_trials']} trials")
                for line in _search_notes(r):
                    say(line)
            else:
                say(result.error.splitlines()[0])
        if result.ok and _results_complete(result):
            break
        error = result.error or "results.json lacks metrics or primary_metric"
    assert script is not None and result is not None
    return script, result


def _search_notes(results: dict) -> list[str]:
    """What the search decided beyond the best trial: trials stopped early or not started, the clustering
    representation, a blend kept or not."""
    notes = []
    stopped = [f"{n} {what}" for n, what in ((results.get("n_pruned"), "stopped early by successive halving"),
                                              (results.get("n_skipped"), "sampled points not tried: they would "
                                                                          "have run past the budget"),
                                              (results.get("n_stopped"), "boosting stopped at the trial's time "
                                                                          "limit (scored with the rounds built)")) if n]
    if stopped:
        notes.append(f"{results.get('n_trials', 0)} trials finished; " + "; ".join(stopped))
    if results.get("refit_stopped"):
        notes.append(results["refit_stopped"])
    if (results.get("representation") or {}).get("reason"):
        notes.append("representation: " + results["representation"]["reason"])
    blend = results.get("ensemble")
    if blend:
        members = ", ".join(f"{m['model']} (trial {m['trial']}) x{m['weight']:.2f}" for m in blend["members"])
        verdict = "kept" if blend["kept"] else f"not kept: {blend.get('refused') or 'it breaks a limit'}"
        notes.append(f"blend of {members}: validation {blend['validation']:.4f} against the best single "
                     f"{blend['best_single_validation']:.4f}; {verdict}")
    return notes


def _results_complete(result: PipelineResult) -> bool:
    r = result.results
    return isinstance(r.get("metrics"), dict) and r.get("primary_metric") is not None


def _deliver(ctx: context.StageContext, record: RunRecord, spec: RequirementSpec, best: Attempt) -> dict[str, Any]:
    record.chosen_plan = best.plan_title
    record.script_path = best.script.path
    record.constraints = [ConstraintRecord(**c.model_dump()) for c in best.verdict.checks]
    n_satisfied = sum(c.satisfied for c in best.verdict.checks)
    if not best.result.ok:
        record.status = "failed"
        record.message = "the training script failed in every attempt; see the script logs in the run folder"
        return {}
    results = best.result.results
    record.metrics = {k: round(float(v), 6) for k, v in results["metrics"].items()}
    record.best_model = results.get("best_model")
    for note in sanity.split_notes(results):
        record.data_notes.append(note)
        ctx.reporter.always(f"data: {note}")
    for warning in sanity.score_warnings(results, spec.problem.downstream_task.value):
        record.warnings.append(warning)
        ctx.reporter.always(f"WARNING: {warning}")
    ctx.tracker.metrics(ctx.mlflow_run_id, results["metrics"], prefix="test_")
    ctx.tracker.metrics(ctx.mlflow_run_id, {k: results.get(k) for k in ("latency_ms", "model_size_mb", "training_time_s", "n_trials", "cv_score")})
    with ctx.reporter.stage("package", "DELIVER: registering, building the bento, writing the demo"):
        registered, model_uri, schema = delivery.register_model(ctx.ref, spec, best.result, best.verdict, best.version)
        record.registered_model = registered
        ctx.reporter.detail(f"registered {registered.name} v{registered.version} @{registered.alias}")
        standing = registered.standing
        if standing and best.verdict.passed and standing.alias != "champion":
            kept = (f"@champion stays on v{standing.champion_version}" if standing.champion_version
                    else "no version holds @champion")
            record.warnings.append(f"{registered.name} v{registered.version} is @{standing.alias}, not @champion: "
                                   f"{standing.reason}. {kept}.")
            ctx.reporter.always(f"WARNING: {record.warnings[-1]}")
        elif standing:
            ctx.reporter.detail(f"@champion: {standing.reason}")
        record.bento_tag = delivery.build_bento(ctx.ref, model_uri, registered, schema)
        ctx.reporter.detail(f"bento {record.bento_tag}")
        record.demo_path = delivery.write_demo(ctx.ref, model_uri, spec, schema, _model_card(record, results))
    standing = record.registered_model.standing if record.registered_model else None
    useless = bool(best.verdict.passed and standing and standing.alias == "candidate")  # a constant, not a model
    record.success_score = success_score(runnable=True, deployed=bool(record.bento_tag and record.demo_path) and not useless,
                                         n_constraints=len(best.verdict.checks), n_satisfied=n_satisfied)
    if useless:
        record.status = "failed"
        record.message = (f"every constraint is met, but the model is no use: {standing.reason}; it is registered with "
                          f"alias 'candidate', not 'champion'")
    elif best.verdict.passed:
        record.status, record.message = "succeeded", ""
    else:
        record.status = "failed"
        record.message = (f"delivered the best model found, but not every constraint is met ({best.verdict.reason}); "
                          f"it is registered with alias 'candidate', not 'champion'")
    return results


def _model_card(record: RunRecord, results: dict[str, Any]) -> dict[str, Any]:
    """What the demo page shows above its form: what the model does, how good it is, on what data, and when."""
    registered = record.registered_model
    return {"task": record.task_type, "target": record.target, "data": Path(record.data_path).name,
            "trained_at": record.created_at, "run_id": record.run_id, "model": record.best_model,
            "metrics": record.metrics, "n_test": results.get("n_test"), "n_train": results.get("n_train"),
            "constraints": [c.model_dump() for c in record.constraints], "metric": record.metric,
            "threshold": results.get("threshold"), "positive_label": results.get("positive_label"),
            "registered": f"{registered.name} v{registered.version} @{registered.alias}" if registered else None}


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
