"""The phases of one run, as the paper names them: INIT (verify the request, parse it into a requirement spec, check
the data), PLAN (retrieve knowledge, devise plans), EXECUTE (the data and model agents on every plan in parallel,
then the manager's choice), IMPLEMENT (write the training script, train it in the sandbox, verify the result
against every requirement) and DELIVER (register, package, demo). Each phase calls Prefect tasks of serializable
inputs (tasks/); the flow in automl.py runs them in order, with the revision loop of the paper's Algorithm 1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import unmapped
from prefect.futures import as_completed

from .. import context
from ..agents import operation_agent
from ..agents.contracts import (CLASSIFICATION_TASKS, ImplementationVerdict, Knowledge, Plan, PlanOutcome,
                                PipelineResult, PipelineScript, RequirementSpec, TaskType)
from ..agents.feasibility import check_feasible
from ..data import sanity, snapshot
from ..data.inputs import read_input
from ..data.profile import class_balance
from ..errors import UserFacingError
from ..retrieval import DataShape
from ..sandbox import isolation_summary
from ..scoring import success_score
from ..tasks import delivery, execution, implementation, parsing, planning, request, retrieval
from ..tasks.common import call_stage
from ..workspace import ConstraintRecord, PlanRecord, RunRecord

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

    @property
    def passed(self) -> bool:
        return self.verdict.passed

    def feedback(self) -> str:
        """What the next revision's planning is told of this attempt's verification."""
        opinion = self.verdict.manager_opinion
        return self.verdict.reason + (f" Manager: {opinion}" if opinion else "")

    def rank(self, spec: RequirementSpec) -> tuple:
        value = self.result.results.get("primary_metric")
        value = float("-inf") if value is None else (value if spec.problem.metric_direction == "maximize" else -value)
        return (self.result.ok, sum(c.satisfied for c in self.verdict.checks), value)


def stage_call(ctx: context.StageContext, record: RunRecord, task, *args):
    """A stage's task called (or its cached result taken, when an earlier attempt of this run finished it)."""
    value, cached = call_stage(task, *args)
    if cached:
        _note_resumed(ctx, record, task.name)
    return value


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


def init(ctx: context.StageContext, record: RunRecord) -> tuple[Any, RequirementSpec]:
    """INIT: the data read, the request verified (an ML task on this data?) and parsed into a requirement spec,
    cross-checked against the data; the table's checks and snapshot written."""
    opts, say, stage, run = ctx.options, ctx.reporter.detail, ctx.reporter.stage, ctx.ref
    with stage("request", "INIT: reading data and verifying the request"):
        frame, profile = read_input(opts.data_path or record.data_path, record.data_path)
        if record.data_source is not None and record.data_source.source != "url":  # a dataset found or referenced
            ctx.tracker.dataset_input(ctx.mlflow_run_id, frame, record.data_path, record.data_source.name)
        verdict = stage_call(ctx, record, request.verify_request, run, opts.instruction, profile)
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
        spec, corrections = stage_call(ctx, record, parsing.parse_instruction, run, opts.instruction, profile, opts.target)
        if spec.dataset.target and spec.problem.downstream_task in CLASSIFICATION_TASKS:
            profile = profile.model_copy(update={"class_balance": class_balance(frame, spec.dataset.target)})
        record.task_type, record.target, record.metric = spec.problem.downstream_task.value, spec.dataset.target, spec.problem.metric
        record.target_reason = spec.dataset.target_reason if spec.dataset.target else None
        record.inputs, record.left_out = list(spec.dataset.features), list(spec.dataset.excluded)
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
    return profile, spec


def retrieve(ctx: context.StageContext, record: RunRecord, spec: RequirementSpec, profile) -> Knowledge:
    """PLAN, first half: knowledge retrieved once for every revision (bundled notes, papers, notebooks, models)."""
    say, stage, run = ctx.reporter.detail, ctx.reporter.stage, ctx.ref
    with stage("retrieve", "PLAN: retrieving knowledge"):
        knowledge = stage_call(ctx, record, retrieval.retrieve_knowledge, run, spec, data_shape(profile, spec))
        record.retrieval = knowledge.sources
        for report in knowledge.sources:
            say(f"retrieval {report.line()}")
        if knowledge.family_priors:
            say("retrieved priors: " + ", ".join(f"{k} {v:.2f}" for k, v in knowledge.family_priors.items()))
    return knowledge


def plan(ctx: context.StageContext, record: RunRecord, spec: RequirementSpec, knowledge: Knowledge, feedback: str,
         revision: int) -> list[Plan]:
    """PLAN: the manager devises the plans (revised with the last verification's feedback after a failure)."""
    opts, say, stage, run = ctx.options, ctx.reporter.detail, ctx.reporter.stage, ctx.ref
    with stage("plan", f"PLAN: devising {opts.n_plans} plans"):
        plans = stage_call(ctx, record, planning.make_plans, run, spec, knowledge, opts.n_plans, feedback, revision)
        for p in plans:
            say(f"plan {p.plan_id}: {p.title} [{', '.join(p.model_families)}]")
    if revision == 0:
        record.plans = [PlanRecord(**p.model_dump(include=set(PlanRecord.model_fields))) for p in plans]
        record.constraints = [ConstraintRecord(name=c.name, op=c.op, target=c.target)
                              for c in spec.problem.constraints]
    return plans


def execute(ctx: context.StageContext, record: RunRecord, spec: RequirementSpec, profile, plans: list[Plan],
            revision: int) -> PlanOutcome:
    """EXECUTE: the data and model agents on every plan in parallel, then the manager's choice among the outcomes
    (the execution verification)."""
    opts, say, stage, run = ctx.options, ctx.reporter.detail, ctx.reporter.stage, ctx.ref
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
        exec_verdict = stage_call(ctx, record, execution.verify_execution, run, spec, outcomes, revision)
        chosen = next(o for o in outcomes if o.plan.plan_id == exec_verdict.best_plan_id)
        say(f"chosen plan {chosen.plan.plan_id}: {exec_verdict.reason}")
        record.chosen_reason = exec_verdict.reason
    return chosen


def implement(ctx: context.StageContext, record: RunRecord, spec: RequirementSpec, chosen: PlanOutcome,
              revision: int, previous_error: str) -> Attempt:
    """IMPLEMENT: the operation agent's script trained in the sandbox, then verified against every requirement
    (the implementation verification)."""
    opts, say, stage, run = ctx.options, ctx.reporter.detail, ctx.reporter.stage, ctx.ref
    version = revision + 1
    script, result = write_and_train(ctx, record, spec, chosen, version, previous_error)
    if not record.sandbox and result.sandbox:
        record.sandbox = (f"{result.sandbox} (on work pool {opts.training_pool!r})" if opts.training_pool
                          else isolation_summary())
        say(f"sandbox: {record.sandbox}")
    with stage("verify_implementation", "IMPLEMENT: verifying against the requirements"):
        imp_verdict = stage_call(ctx, record, implementation.verify_implementation, run, spec, result, version)
        say(("PASS: " if imp_verdict.passed else "FAIL: ") + imp_verdict.reason)
    attempt = Attempt(version, script, result, imp_verdict, chosen.plan.title)
    record.revisions = revision
    return attempt


def write_and_train(ctx: context.StageContext, record: RunRecord, spec: RequirementSpec, chosen, version: int,
                    previous_error: str) -> tuple[PipelineScript, PipelineResult]:
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
            script, problems = stage_call(ctx, record, implementation.write_pipeline, run, spec, chosen, version, error, attempt,
                                          fallback)
            say(f"{script.path} (by {script.author})")
        if problems and attempt < attempts:
            error = "The script was rejected before running: " + "; ".join(problems)
            continue
        budget_s = operation_agent.training_budget_s(spec, opts.budget_s)
        if budget_s < opts.budget_s and attempt == 1:
            say(f"the instruction limits training to {budget_s / 0.9:g} s: the search and the final fit get "
                f"{budget_s:.0f} s of the run's {opts.budget_s:g} s budget")
        where = implementation.training_place(spec, opts.training_pool)
        with stage("train", f"IMPLEMENT: training {where} (HPO budget {budget_s:.0f} s)"):
            result = stage_call(ctx, record, implementation.run_pipeline, run, script, spec, attempt)
            if result.ok:
                r = result.results
                say(f"{r['best_model']}: test {spec.problem.metric} = {r['primary_metric']:.4f} after {r['n_trials']} trials")
                for line in search_notes(r):
                    say(line)
            else:
                say(result.error.splitlines()[0])
        if result.ok and _results_complete(result):
            break
        error = result.error or "results.json lacks metrics or primary_metric"
    if script is None or result is None:
        raise RuntimeError("no training script was written: the code-attempt loop ran no attempt")
    return script, result


def search_notes(results: dict) -> list[str]:
    """What the search decided beyond the best trial: trials stopped early or not started, the clustering
    representation, a blend kept or not."""
    notes = []
    stopped = [f"{n} {what}" for n, what in ((results.get("n_pruned"), "stopped early by successive halving"),
                                              (results.get("n_skipped"), "sampled points not tried: they would "
                                                                          "have run past the budget"),
                                              (results.get("n_stopped"), "stopped growing at the trial's time "
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


def deliver(ctx: context.StageContext, record: RunRecord, spec: RequirementSpec, best: Attempt) -> dict[str, Any]:
    """DELIVER: the best attempt registered (its alias earned against the champion), packaged as a bento, given a
    demo; the run's status said."""
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
    if useless and standing:
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
