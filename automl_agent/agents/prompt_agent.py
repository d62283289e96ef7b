"""Prompt agent: instruction -> RequirementSpec, then cross-checked against the data and the instruction."""

from __future__ import annotations

from .understanding import rx as re  # the re functions over a larger compile cache

from . import knowledge_base as kb
from . import metrics
from .brains.base import AgentStep, RecordingBrain
from .brains.offline import OfflineRules, default_metric, infer_task, understood_target
from .constraints import mentioned_metric, reconcile, unsupported_metric
from .contracts import CLASSIFICATION_TASKS, SUPPORTED_TASKS, DataProfile, RequirementSpec, SpecAudit, TaskType
from .views import profile_view
from ..errors import InputsUnclear, TargetUnclear, UserFacingError
from .understanding import NAMED, canonical, classifiable, data_names, eligible_columns, held_labels, named_but_unusable
from .understanding.audit import audit
from .understanding.features import decide_features, describe, usable_kind
from .understanding.windows import rows_are_the_steps

TABLE_TASKS = {TaskType.tabular_classification, TaskType.tabular_regression, TaskType.tabular_clustering}

STEP = "prompt.parse_instruction"


def parse_instruction(brain: RecordingBrain, instruction: str, profile: DataProfile,
                      target_override: str | None = None) -> tuple[RequirementSpec, list[str]]:
    if target_override is not None and profile.column(target_override) is None:
        raise UserFacingError(
            f"--target {target_override!r} is not a column of {profile.path.rsplit('/', 1)[-1]}.",
            f"Columns are: {', '.join(profile.names)}", status="rejected")
    reading = canonical(instruction, tuple(profile.names), data_names(profile.path))
    instruction = reading.text
    step = AgentStep(STEP, RequirementSpec, {
        "instruction": instruction, "profile": profile,
        "task_types": [t.value for t in SUPPORTED_TASKS], "metric_names": sorted(metrics.MEASURES),
    }, views={"profile": profile_view(profile)})
    spec = brain.answer(step)
    spec, corrections = cross_check(spec, instruction, profile, target_override)
    if corrections:
        brain.note_corrections(STEP, corrections)
    spec.audit = audit(spec, instruction, profile, reading.language, reading.rewrites)
    _ask_about_unplaced(spec.audit, spec)
    return spec, corrections


def _ask_about_unplaced(found: SpecAudit, spec: RequirementSpec) -> None:
    """Words of the instruction that went nowhere in the spec stop the run with a question naming them."""
    unplaced = found.unplaced
    if not unplaced:
        return
    columns = [m.words for m in unplaced if m.kind == "column"]
    bounds = [m.words for m in unplaced if m.kind == "bound"]
    parts = []
    if columns:
        parts.append(f"it names {describe([repr(c) for c in columns])}, and I could not tell whether "
                     f"{'each is' if len(columns) > 1 else 'it is'} the target, an input to limit to, or one to leave out")
    if bounds:
        parts.append(f"it states {describe([repr(b) for b in bounds])}, and I could not tell what "
                     f"{'they limit' if len(bounds) > 1 else 'this limits'}")
    understood = (f"I understood: {spec.problem.downstream_task.value} of {spec.dataset.target!r}, metric "
                  f"{spec.problem.metric}" + (f", inputs {describe(spec.dataset.features)}" if spec.dataset.features else "")
                  + (f", without {describe(spec.dataset.excluded)}" if spec.dataset.excluded else "")
                  + "".join(f", {c.name} {c.op} {c.target:g}" for c in spec.problem.constraints))
    raise InputsUnclear(
        "Part of the instruction went nowhere in what I understood: " + "; ".join(parts) + f". {understood}.",
        "Say it in other words (e.g. 'using only A and B', 'do not use C', 'RMSE at most 4'), or pass --target "
        "COLUMN; `--dry-run --json` shows each part of the instruction and where it went.", status="rejected")


def cross_check(spec: RequirementSpec, instruction: str, profile: DataProfile,
                target_override: str | None) -> tuple[RequirementSpec, list[str]]:
    """Decisions that must be right are checked against the data and the instruction, whatever the brain said."""
    rules = OfflineRules.parse_instruction(instruction, profile, [], [])
    notes: list[str] = []
    spec = spec.model_copy(deep=True)
    problem, dataset = spec.problem, spec.dataset

    decision = understood_target(instruction, profile, target_override)
    if decision.column is not None:
        if dataset.target != decision.column:
            said = f" (the brain said {dataset.target!r})" if dataset.target else ""
            notes.append(f"target set to {decision.column!r}: {decision.reason}{said}")
        dataset.target = decision.column
    elif dataset.target is not None:
        notes.append(f"target {dataset.target!r} dropped: {decision.reason}")
        dataset.target = None
    dataset.target_reason = decision.reason

    task = problem.downstream_task
    target = dataset.target or rules.dataset.target
    expected = infer_task(instruction, profile, target)
    if task not in SUPPORTED_TASKS or not _task_fits_data(task, profile, target, instruction):
        notes.append(f"task {task.value} does not fit the data; using {expected.value}")
        problem.downstream_task = task = expected
    elif (rules.problem.downstream_task == TaskType.tabular_clustering and task != TaskType.tabular_clustering
          and decision.how not in NAMED):
        notes.append(f"task {task.value} needs a target and the instruction asks for groups; using clustering")
        problem.downstream_task = task = TaskType.tabular_clustering
    if task == TaskType.tabular_clustering:
        column = profile.column(dataset.target) if dataset.target else None
        if column is not None and (decision.how not in NAMED or not classifiable(column)):
            dataset.target = None  # held labels score the clusters only when the instruction names labels
        dataset.target = held_labels(instruction, profile) or dataset.target
    elif dataset.target is None:
        unusable = named_but_unusable(instruction, profile)
        if unusable:
            raise UserFacingError(f"The column to predict cannot be learned: {unusable}.",
                                  "Name another column to predict (--target COLUMN), or fix the data.")
        raise TargetUnclear(decision.reason, decision.candidates, [c.name for c in eligible_columns(profile)])

    if task == TaskType.node_classification and not _task_fits_data(task, profile, dataset.target, instruction):
        raise UserFacingError(f"Node classification needs a label column with a few classes; {dataset.target!r} is not one.",
                              "Name the label column of nodes.csv in the instruction or with --target.")

    allowed = metrics.TASK_METRICS[task]
    names = tuple(c.name for c in profile.columns)
    asked_for = unsupported_metric(instruction, names)
    if asked_for and mentioned_metric(instruction, task, names) is None:
        raise UserFacingError(
            f"The instruction asks for {asked_for}, which automl-agent does not measure; it would train and judge the "
            f"model by another metric without your say.",
            f"Name one it measures for {task.value.replace('_', ' ')}: {', '.join(sorted(allowed))} (for example "
            f"'... judged by {sorted(allowed)[0]}'), and compute {asked_for} yourself from the served model's predictions.")
    if problem.metric not in allowed:
        fallback = rules.problem.metric if rules.problem.metric in allowed else kb.default_metric(task)
        notes.append(f"metric {problem.metric!r} does not fit {task.value}; using {fallback!r}")
        problem.metric = fallback
    named = mentioned_metric(instruction, task, names)
    if named is None and dataset.target != rules.dataset.target and task != TaskType.tabular_clustering:
        default = default_metric(task, profile, dataset.target)  # the default follows the target actually used
        if problem.metric != default and problem.metric == rules.problem.metric:
            problem.metric = default
    if (named is None and problem.metric == "accuracy" and task in CLASSIFICATION_TASKS
            and default_metric(task, profile, dataset.target) == "f1"):
        notes.append("metric 'accuracy' replaced by 'f1': the rarer class is under 30 % of the rows, where accuracy "
                     "rewards predicting the majority (the instruction names no metric)")
        problem.metric = "f1"
    if named in allowed and problem.metric != named:
        notes.append(f"metric {problem.metric!r} replaced by {named!r}, the one the instruction names")
        problem.metric = named
    if (task == TaskType.tabular_clustering and dataset.target and problem.metric == "silhouette"
            and mentioned_metric(instruction, task, names) is None):
        notes.append("held labels are named, so clustering is scored with the Rand index (as in the paper)")
        problem.metric = "rand_index"
    if task == TaskType.tabular_clustering and problem.metric in {"rand_index", "adjusted_rand_index", "nmi"} and not dataset.target:
        notes.append(f"{problem.metric} needs held labels and none were named; using 'silhouette'")
        problem.metric = "silhouette"
    direction = metrics.direction(problem.metric)
    if problem.metric_direction != direction:
        notes.append(f"direction for {problem.metric} corrected to {direction}")
        problem.metric_direction = direction

    problem.constraints, constraint_notes = reconcile(problem.constraints, instruction, profile, dataset.target)
    notes += constraint_notes
    for field_name in ("input_seq_len", "pred_seq_len"):
        wanted = getattr(rules.problem, field_name)
        if getattr(problem, field_name) != wanted:
            if wanted is not None or getattr(problem, field_name) is not None:
                notes.append(f"{field_name} set to {wanted} as the instruction says")
            setattr(problem, field_name, wanted)
    if problem.n_clusters != rules.problem.n_clusters:
        if problem.n_clusters is not None or rules.problem.n_clusters is not None:
            notes.append(f"number of clusters set to {rules.problem.n_clusters} as the instruction says")
        problem.n_clusters = rules.problem.n_clusters
    notes += _check_inputs(spec, instruction, profile)
    dataset.path = profile.path
    return spec, notes


def _check_inputs(spec: RequirementSpec, instruction: str, profile: DataProfile) -> list[str]:
    """The inputs the instruction allows ('using only carat and cut', 'don't use total_charges'), read from the
    words whatever the brain said; a limit naming no column stops the run with a question."""
    dataset = spec.dataset
    if spec.problem.downstream_task not in TABLE_TASKS:
        dataset.features, dataset.excluded = [], []
        return []
    choice = decide_features(instruction, profile, dataset.target)
    notes = []
    file = profile.path.rsplit("/", 1)[-1] or "the table"
    if choice.unresolved:
        columns = [c.name for c in profile.columns if c.name != dataset.target]
        said = describe(choice.unresolved)
        target_named = dataset.target and any(dataset.target.lower() in u.lower() for u in choice.unresolved)
        raise InputsUnclear(
            f"The instruction limits the model's inputs ({choice.only_phrase!r}), but I cannot tell which column "
            f"{'each of these means' if len(choice.unresolved) > 1 else 'this means'}: {said}"
            + (f" ({dataset.target!r} is the column to predict, so it cannot be an input)" if target_named else "") + ".",
            f"Name the columns as {file} spells them ({', '.join(columns[:15])}{', ...' if len(columns) > 15 else ''}),"
            " or leave the limit out to use every usable column.", status="rejected")
    if choice.unresolved_exclusions:
        columns = [c.name for c in profile.columns if c.name != dataset.target]
        raise InputsUnclear(
            f"The instruction says not to use {describe(choice.unresolved_exclusions)}, and I cannot tell which "
            f"column {'each of these means' if len(choice.unresolved_exclusions) > 1 else 'this means'}"
            + (f" (I would leave out {describe(choice.excluded)})" if choice.excluded else "") + ".",
            f"Name the columns to leave out as {file} spells them ({', '.join(columns[:15])}"
            f"{', ...' if len(columns) > 15 else ''}).", status="rejected")
    by_brain = _brain_reads_a_limit_the_rules_missed(dataset.features, choice.only, instruction, profile)
    if by_brain:
        choice.only = list(dataset.features)
    if set(dataset.features) != set(choice.only) and dataset.features:
        notes.append(f"inputs {describe(dataset.features)} (the brain's) replaced by what the instruction says: "
                     + (describe(choice.only) if choice.only else "every usable column"))
    dataset.features = choice.only
    if choice.only:
        unusable = [c for c in (profile.column(n) for n in choice.only) if c is not None and not usable_kind(c)]
        if len(unusable) == len(choice.only):
            raise UserFacingError(
                f"The instruction limits the inputs to {describe(choice.only)}, and no model here can learn from "
                f"{'them' if len(unusable) > 1 else 'it'}: " + "; ".join(f"{c.name} is {_kind_phrase(c.kind)}"
                                                                        for c in unusable) + ".",
                "Name other columns as inputs, or leave the limit out to use every usable column.", status="rejected")
        source = "as the brain read the instruction" if by_brain else f"as the instruction says ({choice.only_phrase!r})"
        notes.append(f"inputs limited to {describe(choice.only)} {source}"
                     + "".join(f"; {c.name} left out: it is {_kind_phrase(c.kind)}" for c in unusable))
    dataset.excluded = [name for name in choice.excluded if name not in choice.only]
    if choice.only and dataset.excluded and re.search(r"\b(?:everything|anything|all)\s+(?:else|other)\b",
                                                      choice.excluded_phrase.lower()):
        # 'restrict the inputs to: A, B, C. Leave everything else out, in particular D': D is out with the rest, said
        # as an example of it ('Sex must not be an input' beside a list is an exclusion of its own, and stays one)
        notes.append(f"{describe(dataset.excluded)} left out with every other column the inputs list does not name "
                     f"({choice.excluded_phrase!r})")
        dataset.left_out = {**dataset.left_out, **{name: f"said not to be used ({choice.excluded_phrase!r}), and not "
                                                          "among the inputs listed" for name in dataset.excluded}}
        dataset.excluded = []
    left = [c.name for c in profile.columns if usable_kind(c) and c.name != dataset.target
            and c.name not in dataset.excluded and (not dataset.features or c.name in dataset.features)]
    if dataset.excluded and not left:
        raise UserFacingError(
            f"The instruction leaves out {describe(dataset.excluded)} ({choice.excluded_phrase!r}), and no other "
            "column is left for the model to learn from.", "Allow at least one input column.", status="rejected")
    if dataset.excluded:
        notes.append(f"{describe(dataset.excluded)} not used as inputs, as the instruction says "
                     f"({choice.excluded_phrase!r})")
    return notes


def _brain_reads_a_limit_the_rules_missed(said: list[str], read: list[str], instruction: str,
                                          profile: DataProfile) -> bool:
    """A brain may understand a limit in words the rules do not know ('with only the 4 Cs'): it stands when the rules
    found none, the instruction does speak of limiting something, and every column it names is real."""
    return bool(said) and not read and all(profile.column(c) is not None for c in said) and bool(
        re.search(r"\b(?:only|just|solely|exclusively|nothing else|no other|limit\w*|restrict\w*)\b", instruction.lower()))


def _kind_phrase(kind: str) -> str:
    return {"identifier": "an identifier (a different value in every row)", "constant": "constant (one value)",
            "text": "free text", "datetime": "a date or time", "image": "image paths"}.get(kind, kind)


def _task_fits_data(task: TaskType, profile: DataProfile, target: str | None, instruction: str) -> bool:
    if (task == TaskType.node_classification) != (profile.graph is not None):
        return False  # a graph's rows are nodes, a table's rows are not
    if task == TaskType.node_classification:
        column = profile.column(target) if target else None
        return column is not None and classifiable(column)
    if task == TaskType.tabular_clustering:
        return True
    column = profile.column(target) if target else None
    if task == TaskType.image_classification:
        return any(c.kind == "image" for c in profile.columns) and (column is None or column.kind != "numeric"
                                                                      or column.n_unique <= 100)
    if task == TaskType.time_series_forecasting:
        has_time = any(c.kind == "datetime" for c in profile.columns) or rows_are_the_steps(instruction, profile)
        return has_time and (column is None or column.kind == "numeric")
    if column is None:
        return target is None
    if task == TaskType.tabular_regression:
        return column.kind == "numeric" and column.n_unique > 2
    as_classes = classifiable(column)
    has_text = any(c.kind == "text" and c.name != target for c in profile.columns)
    if any(c.kind == "image" for c in profile.columns):
        return False  # a table of image paths is an image task
    if task == TaskType.tabular_classification:
        return as_classes and not has_text
    if task == TaskType.text_classification:
        return as_classes and has_text
    return False
