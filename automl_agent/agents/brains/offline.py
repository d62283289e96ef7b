"""The offline brain: answers every agent step from its typed inputs with rules and the bundled knowledge base.

No key, no network; deterministic. It is also the floor the cross-checks fall back to when another brain errs.
"""

from __future__ import annotations

from ..understanding import rx as re  # the re functions over a larger compile cache
from typing import Any, Callable

from pydantic import BaseModel

from .. import knowledge_base as kb
from .. import metrics
from ..understanding import NAMED, TargetDecision, decide_target, held_labels, judge_request, sentence_encoder
from ..understanding.request import data_names
from ..understanding.exclusions import without_excluded
from ..constraints import mentioned_metric, parse_constraints, percent_points, requested_clusters
from ..understanding.windows import requested_windows, rows_are_the_steps, stated_step_s
from ..contracts import (
    CLASSIFICATION_TASKS, Candidate, ConstraintCheck, DataAnalysis, DataProfile, DatasetSpec, DecomposedPlan, ExecutionVerdict,
    GeneratedScript,
    Knowledge, KnowledgeSpec, ManagerOpinion, ModelProposal, ModelSpec, Plan, PlanOutcome, PlanSet, ProblemSpec,
    RequestVerdict, RequirementSpec, TaskType, UserSpec,
)
from .base import AgentStep, Usage

FORECAST_WORDS = ("forecast", "next ", "ahead", "horizon", "time series", "time-series", "future", "pred_seq_len",
                  "coming", "tomorrow", "upcoming", "day-ahead")
# 'group' and 'segment' ask for clustering as a verb or as what is found ('group the customers', 'into 4 segments',
# 'find natural groups'), not as a noun for people ('our supply planning group needs a forecast')
_GROUP_WORD = r"(?:group|segment)"
CLUSTERING = re.compile(
    # 'the jobs of our computer cluster': a cluster of machines is not a request to cluster
    r"\b(?:(?<!computer\s)(?<!compute\s)(?<!server\s)(?<!hpc\s)(?<!kubernetes\s)(?<!k8s\s)(?<!gpu\s)(?<!spark\s)"
    r"(?<!hadoop\s)(?<!dask\s)(?<!slurm\s)(?<!database\s)cluster\w*|segmentation|segmenting|groupings?|regroup\w*|agrup\w*|gruppier\w*|unsupervised|partition\w*|alike|"
    r"similar (?:ones|machines|customers|items|rows|records))\b"
    rf"|(?:^|[.;:!?,(]\s*|\b(?:to|please|pls|and|then|you|we|i|can|could|would|should|must)\s+){_GROUP_WORD}(?:s|ed)?\b"
    rf"(?!\s+(?:needs?|wants?|asks?|is|are|has|have|will|would|manager|lead|head|members?)\b)"
    rf"|\b{_GROUP_WORD}(?:ed|ing)\s+(?:by|into|together|the|them|these|those)\b"
    rf"|\b(?:into|in|find|finds|found|discover|identify|uncover|reveal|detect|distinct|natural|separate|"
    rf"different|similar|homogeneous|\d+|two|three|four|five|six|seven|eight|nine|ten|several|few|some|k)\s+"
    rf"(?:\w+\s+)?{_GROUP_WORD}s\b"
    rf"|\b{_GROUP_WORD}s?\s+(?:of|with)\s+similar\b"
    rf"|\b(?:the|these|those|resulting|found|obtained)\s+{_GROUP_WORD}s\b(?!\s+(?:need|want|ask|is|are|has|have|will)\b)",
    re.IGNORECASE)
REGRESSION_WORDS = ("regress", "price", "how much", "how many", "amount", "value of", "estimate the", "continuous",
                    "rmse", "mae", "r2", "r-squared", "strength", "revenue", "cost", "sales", "demand")
# a few distinct numbers are still a quantity when the words say so: 'the number of affairs (it's a count)', 'MAE'
QUANTITY_CUES = re.compile(r"regress|\bprice|how much|how many|number of|\bcount\b|\bcounts\b|\brmse\b|\bmae\b|"
                           r"\bmape\b|\br2\b|r-squared|mean absolute|squared error")
CLASSIFICATION_WORDS = ("classif", "churn", "whether", "detect", "category", "categories", "yes or no", "label",
                        "accuracy", "f1", "spam", "fraud", "default", "diagnos", "class")


AREA = {TaskType.image_classification: "computer vision", TaskType.text_classification: "natural language processing",
        TaskType.time_series_forecasting: "time-series analysis", TaskType.node_classification: "graph learning"}
MODALITY = {TaskType.image_classification: "image", TaskType.text_classification: "text",
            TaskType.time_series_forecasting: "time series", TaskType.node_classification: "graph"}


class OfflineRules:
    """Pure functions, one per agent step: typed inputs in, contract out."""

    # ---------------------------------------------------------------- manager
    @staticmethod
    def verify_request(instruction: str, data_summary: dict[str, Any], profile: DataProfile | None = None,
                       target_flag: str | None = None) -> RequestVerdict:
        decision = understood_target(instruction, profile, target_flag) if profile is not None else None
        names = data_names(profile) if profile is not None else list(data_summary.get("columns", []))
        relevant, feedback = judge_request(instruction, decision, target_flag, names)
        adequate = bool(data_summary.get("columns"))
        if relevant and not adequate:
            feedback = "The data has no columns to learn from: check the file."
        return RequestVerdict(relevant=relevant, adequate=adequate, feedback=feedback)

    @staticmethod
    def make_plans(spec: RequirementSpec, knowledge: Knowledge, feedback: str, n_plans: int, model_keys: list[str]) -> PlanSet:
        templates = kb.plan_templates(spec.problem.downstream_task)
        compact_first = bool(feedback) and re.search(r"latency|size|param", feedback)
        if compact_first:
            templates = sorted(templates, key=lambda t: 0 if "linear" in t["title"].lower() or "compact" in t["title"].lower() else 1)
        plans = []
        for i in range(n_plans):
            t = templates[i % len(templates)]
            rationale = t["rationale"]
            if feedback:
                rationale += f" Revised after: {feedback[:300]}"
            plans.append(Plan(plan_id=i + 1, title=t["title"], rationale=rationale, data_steps=list(t["data_steps"]),
                              model_families=[m for m in t["models"] if m in model_keys]))
        return PlanSet(plans=_with_priors(plans, knowledge.family_priors))

    @staticmethod
    def verify_execution(spec: RequirementSpec, outcomes: list[PlanOutcome]) -> ExecutionVerdict:
        metric = spec.problem.metric
        maximize = spec.problem.metric_direction == "maximize"
        passed, scored = [], []
        for outcome in outcomes:
            if not outcome.model.candidates:
                continue
            top = outcome.model.candidates[0]
            expected = {metric: top.expected_metric, "latency_ms": top.expected_latency_ms, "model_size_mb": top.expected_size_mb}
            ok = all(c.is_met(expected.get(c.name)) for c in spec.problem.constraints if c.name in expected and expected.get(c.name) is not None)
            if ok:
                passed.append(outcome.plan.plan_id)
            score = top.expected_metric if top.expected_metric is not None else 0.0
            scored.append(((ok, score if maximize else -score, -outcome.plan.plan_id), outcome.plan.plan_id))
        if not scored:
            return ExecutionVerdict(passed=[], best_plan_id=outcomes[0].plan.plan_id, reason="no plan produced candidates")
        best = max(scored)[1]
        reason = (f"plan {best} is expected to meet every constraint with the best {metric}" if best in passed
                  else f"no plan is expected to meet every constraint; plan {best} comes closest on {metric}")
        return ExecutionVerdict(passed=passed, best_plan_id=best, reason=reason)

    @staticmethod
    def verify_implementation(spec: RequirementSpec, results: dict[str, Any], checks: list[ConstraintCheck]) -> ManagerOpinion:
        failed = [c for c in checks if not c.satisfied]
        if not results.get("ok", True):
            return ManagerOpinion(approve=False, reason="the training script did not finish; fix the error before anything ships")
        if failed:
            detail = "; ".join(f"{c.name} measured {c.measured} but must be {c.op} {c.target:g}" for c in failed)
            hint = " Prefer smaller, faster models." if any(c.name in metrics.COMPLEXITY for c in failed) else " Widen the search."
            return ManagerOpinion(approve=False, reason=f"unmet: {detail}.{hint}")
        return ManagerOpinion(approve=True, reason="every stated requirement is met on the held-out test split")

    # ---------------------------------------------------------------- prompt agent
    @staticmethod
    def parse_instruction(instruction: str, profile: DataProfile, task_types: list[str], metric_names: list[str]) -> RequirementSpec:
        decision = understood_target(instruction, profile)
        target = decision.column or (profile.target_candidates[0] if profile.target_candidates else None)
        task = infer_task(instruction, profile, target)
        if task == TaskType.tabular_clustering:  # labels score clusters only when the instruction asks for it, and the
            # column it scores against ('NMI against genus') wins over a word that merely names a column ('rodents')
            target = held_labels(instruction, profile) or (target if decision.how in NAMED else None)
        metric = mentioned_metric(instruction, task, tuple(profile.names)) or (
            "rand_index" if task == TaskType.tabular_clustering and target else default_metric(task, profile, target))
        constraints = percent_points(parse_constraints(instruction), profile, target)
        lookback, horizon = requested_windows(instruction, profile.time_step_s or stated_step_s(instruction))
        domain_words = [w for w in ("churn", "price", "customer", "medical", "finance", "retail", "energy", "wine") if w in instruction.lower()]
        return RequirementSpec(
            user=UserSpec(intent="build", expertise="medium"),
            problem=ProblemSpec(
                area=AREA.get(task, "tabular data analysis"), downstream_task=task, application_domain=", ".join(domain_words),
                description=instruction.strip(), metric=metric, metric_direction=metrics.direction(metric),
                constraints=constraints, n_clusters=requested_clusters(instruction),
                input_seq_len=lookback, pred_seq_len=horizon,
            ),
            dataset=DatasetSpec(name=profile.path.rsplit("/", 1)[-1], modality=MODALITY.get(task, "tabular"), source="user-upload",
                                path=profile.path, target=target),
            model=ModelSpec(),
            knowledge=KnowledgeSpec(),
        )

    # ---------------------------------------------------------------- data agent
    @staticmethod
    def decompose_data(spec: RequirementSpec, plan: Plan) -> DecomposedPlan:
        steps = [f"load {spec.dataset.name or 'the table'} and confirm the schema against the profile"]
        steps += plan.data_steps
        if spec.dataset.target:
            steps.append(f"measure the distribution of the target {spec.dataset.target!r}")
        return DecomposedPlan(agent="data", subtasks=steps)

    @staticmethod
    def analyse_data(spec: RequirementSpec, plan: Plan, subtasks: DecomposedPlan, profile: DataProfile) -> DataAnalysis:
        target = spec.dataset.target
        task = spec.problem.downstream_task
        imbalance = None
        if profile.class_balance:
            imbalance = round(min(profile.class_balance.values()) / max(profile.class_balance.values()), 4)
        if task == TaskType.image_classification:
            image_column = next((c.name for c in profile.columns if c.kind == "image"), None)
            dropped = {c.name: "not an image: the model sees the pixels only" for c in profile.columns
                       if c.name not in {target, image_column}}
            return DataAnalysis(summary=f"{profile.n_rows} images in column {image_column!r}; labels in {target!r}",
                                features=[], dropped=dropped, numeric=[], categorical=[], image_column=image_column,
                                preprocessing=list(plan.data_steps), class_imbalance=imbalance)
        if task == TaskType.node_classification and profile.graph is not None:
            return _graph_analysis(profile, target, plan, imbalance)
        if task == TaskType.time_series_forecasting:
            time_column = next((c.name for c in profile.columns if c.kind == "datetime"), None)
            dropped = {c.name: "another series: the forecaster models the target's own history" for c in profile.columns
                       if c.name not in {target, time_column}}
            order = f"ordered by {time_column!r}" if time_column else "in the order of its rows (the table has no time column)"
            summary = f"{profile.n_rows} rows; the series {target!r} {order}; {len(dropped)} other columns left out"
            return DataAnalysis(summary=summary, features=[], dropped=dropped, numeric=[], categorical=[],
                                time_column=time_column, preprocessing=list(plan.data_steps))
        dropped: dict[str, str] = {}
        numeric, categorical, text = [], [], []
        for col in profile.columns:
            if col.name == target:
                continue
            if col.kind == "text" and task == TaskType.text_classification:
                text.append(col.name)
            elif col.kind == "identifier":
                dropped[col.name] = "identifier: unique per row, carries no signal"
            elif col.kind == "constant":
                dropped[col.name] = "constant: a single value"
            elif col.kind in {"text", "datetime"}:
                dropped[col.name] = f"{col.kind} column: not used by tabular models in this plan"
            elif col.kind == "numeric":
                numeric.append(col.name)
            else:
                categorical.append(col.name)
        missing = [c.name for c in profile.columns if c.missing and c.name not in dropped and c.name != target]
        steps = list(plan.data_steps)
        if missing:
            steps.insert(0, f"impute missing values in {', '.join(missing[:6])}")
        summary = (f"{profile.n_rows} rows; {len(numeric)} numeric and {len(categorical)} categorical features; "
                   + (f"{len(text)} text columns ({', '.join(text)}); " if text else "")
                   + f"{len(dropped)} columns dropped")
        if imbalance is not None:
            summary += f"; minority/majority class ratio {imbalance}"
        return DataAnalysis(summary=summary, features=numeric + categorical + text, dropped=dropped, numeric=numeric,
                            categorical=categorical, text=text, preprocessing=steps, class_imbalance=imbalance)

    # ---------------------------------------------------------------- model agent
    @staticmethod
    def decompose_model(spec: RequirementSpec, plan: Plan, analysis: DataAnalysis) -> DecomposedPlan:
        steps = [f"retrieve {m} with its default hyperparameters" for m in plan.model_families]
        steps += [f"search hyperparameters with Optuna, scoring {spec.problem.metric} by cross-validation",
                  "profile latency per prediction and model size", "rank candidates and keep the top k"]
        return DecomposedPlan(agent="model", subtasks=steps)

    @staticmethod
    def propose_models(spec: RequirementSpec, plan: Plan, subtasks: DecomposedPlan, analysis: DataAnalysis,
                       knowledge: dict[str, Any], top_k: int, metric: str) -> ModelProposal:
        constraints = {c.name: c for c in spec.problem.constraints}
        candidates = []
        for key in plan.model_families:
            info = knowledge.get(key)
            if info is None:
                continue
            expected = info["expected"]
            space = dict(info["space"])
            latency = expected["latency_ms"]
            size = expected["size_mb"]
            if "latency_ms" in constraints or "model_size_mb" in constraints:
                space = _compact_space(key, space)
                latency, size = latency * 0.6, size * 0.5
            candidates.append(Candidate(
                model=key, hyperparameters=dict(info["defaults"]), search_space=space,
                expected_metric=_expected_metric(spec, expected["score"]), expected_latency_ms=latency,
                expected_size_mb=size, reason=info.get("notes", ""),
            ))
        return ModelProposal(candidates=candidates[:top_k],
                             summary=f"{len(candidates[:top_k])} candidates for '{plan.title}'")


def _with_priors(plans: list[Plan], priors: dict[str, float]) -> list[Plan]:
    """Retrieved evidence (OpenML's best flows on similar data) orders the plans: the plan whose lead family has the
    best record comes first. A plan's own families keep their order: its title says what it leads with."""
    def lead(plan: Plan) -> float:
        return priors.get((plan.model_families or [""])[0], 0.0)

    order = sorted(range(len(plans)), key=lambda i: (-lead(plans[i]), i))
    ranked = []
    for n, i in enumerate(order, start=1):
        plan = plans[i]
        note = (f" Retrieval: {plan.model_families[0]} has a strong record on similar OpenML datasets "
                f"({lead(plan):.2f})." if lead(plan) > 0 else "")
        ranked.append(plan.model_copy(update={"plan_id": n, "rationale": plan.rationale + note}))
    return ranked


def _graph_analysis(profile: DataProfile, target: str | None, plan: Plan, imbalance: float | None) -> DataAnalysis:
    graph = profile.graph
    split = (f"its own split ({', '.join(f'{n} {part}' for part, n in graph.own_split.items())})" if graph.own_split
             else "no split of its own: labelled nodes split stratified")
    summary = (f"graph of {graph.n_nodes} nodes and {graph.n_edges} edges (mean degree {graph.mean_degree}); "
               f"{graph.n_features} features ({graph.feature_kind}); {graph.n_classes} classes in {target!r}; {split}")
    if graph.label_homophily is not None:
        summary += f"; {graph.label_homophily:.0%} of labelled edges join same-class nodes"
    return DataAnalysis(summary=summary, features=list(graph.feature_names), numeric=[], categorical=[],
                        node_column=graph.node_column, preprocessing=list(plan.data_steps), class_imbalance=imbalance)


def _expected_metric(spec: RequirementSpec, generic_score: float) -> float | None:
    if metrics.direction(spec.problem.metric) == "minimize":
        return None  # loss metrics depend on the target's scale; no honest prior
    return generic_score


def _compact_space(model: str, space: dict[str, Any]) -> dict[str, Any]:
    """Cap size-driving hyperparameters when latency or size is constrained."""
    caps = {"n_estimators": 400, "iterations": 400, "num_leaves": 64, "max_iter": 300, "max_depth": 16}
    out = {}
    for name, spec in space.items():
        spec = dict(spec)
        if name in caps and spec.get("type") == "int":
            spec["high"] = min(spec["high"], caps[name])
            spec["low"] = min(spec["low"], spec["high"])
        out[name] = spec
    return out


IMBALANCED_SHARE = 0.3


def default_metric(task: TaskType, profile: DataProfile, target: str | None) -> str:
    """The knowledge base's default, except that a two-class target whose rarer class is under 30 % of the rows
    is judged by F1 on that class: accuracy rewards predicting the majority there."""
    column = profile.column(target) if target else None
    if (task in CLASSIFICATION_TASKS and column is not None and column.minority_share is not None
            and column.minority_share < IMBALANCED_SHARE):
        return "f1"
    return kb.default_metric(task)


_DECISIONS: dict[tuple[str, str, str | None], TargetDecision] = {}


def understood_target(instruction: str, profile: DataProfile, flag: str | None = None) -> TargetDecision:
    """decide_target, once per (instruction, data, flag) in this process: the request check, the offline parse and
    the cross-check all ask, and the sentence encoder is slow the first time."""
    key = (instruction, profile.model_dump_json(), flag)
    if key not in _DECISIONS:
        if len(_DECISIONS) > 256:
            _DECISIONS.clear()
        def decide(table: DataProfile) -> TargetDecision:
            return decide_target(instruction, table, flag, semantic=sentence_encoder())
        _DECISIONS[key] = without_excluded(decide(profile), instruction, profile, decide)
    return _DECISIONS[key]


def _asks_for_column(instruction: str, profile: DataProfile, target: str | None) -> bool:
    """'Predict which department a customer segment ...': a named target with a prediction verb is not clustering,
    unless clustering is asked for outright (then the named labels score the clusters)."""
    text = instruction.lower()
    if target is None or re.search(r"\bcluster", text):
        return False
    decision = understood_target(instruction, profile)
    return decision.column == target and (decision.how == "explicit"  # '- target: group'
                                          or bool(re.search(r"\b(?:predict|classify|estimate|forecast)\b", text)))


def _without_column_names(text: str, profile: DataProfile, target: str | None) -> str:
    """The instruction without the names of the table's other columns: a column called 'price' in a list of inputs
    is not a cue that the target is an amount."""
    for column in sorted((c.name.lower() for c in profile.columns if c.name != target), key=len, reverse=True):
        text = re.sub(rf"(?<![\w.]){re.escape(column)}(?![\w.])", " ", text)
    return text


TEXT_WORDS = re.compile(r"\b(?:texts?|messages?|reviews?|comments?|descriptions?|tweets?|e-?mails?|sentences?|documents?|"
                        r"posts?|wording|words|notes?|remarks?|transcripts?|abstracts?|titles?|headlines?|sms)\b")


# 'projected sales', 'project next year's demand', but not 'for my stats project'
_PROJECTED = (r"\bproject(?:ed|ion|ions|ing)\b|\bprojects?\s+(?:the|next|future|our|its|their|how|what|where|demand|"
              r"sales|revenue)\b|\bextrapolat")


def _column_groups_said(text: str, profile: DataProfile) -> str:
    """'which of the four dose groups they were in' -> '... four dose ...': groups named by a column are its values,
    not clusters to find."""
    for name in sorted((c.name.lower() for c in profile.columns if len(c.name) >= 3), key=len, reverse=True):
        text = re.sub(rf"(?<![\w.]){re.escape(name)}\s+{_GROUP_WORD}s?\b", name, text)
    return text


def infer_task(instruction: str, profile: DataProfile, target: str | None) -> TaskType:
    text = instruction.lower()
    if profile.graph is not None:  # a graph's rows are nodes: the one graph task built is labelling them
        return TaskType.node_classification
    if CLUSTERING.search(_column_groups_said(text, profile)) and not _asks_for_column(instruction, profile, target):
        return TaskType.tabular_clustering
    column = profile.column(target) if target else None
    has_time = any(c.kind == "datetime" for c in profile.columns) or rows_are_the_steps(instruction, profile)
    forecast_said = any(w in text for w in FORECAST_WORDS) or bool(re.search(_PROJECTED, text)) \
        or requested_windows(text)[1] is not None or bool(re.search(r"\b(?:hourly|daily|weekly|monthly|quarterly|yearly)\b", text))
    if has_time and forecast_said and (column is None or column.kind == "numeric"):
        return TaskType.time_series_forecasting
    # a text task when the text is what the table is about ('label, message'); a table of many measurements with one
    # free-text remark is tabular, the remark one input among them
    others = [c for c in profile.columns if c.name != target and c.kind not in {"text", "identifier", "constant"}]
    has_text = any(c.kind == "text" and c.name != target for c in profile.columns) and (
        len(others) <= 2 or (len(others) <= 5 and bool(TEXT_WORDS.search(text))))
    has_image = any(c.kind == "image" for c in profile.columns)
    if has_image and (column is None or column.kind in {"categorical", "boolean"} or column.n_unique <= 100):
        return TaskType.image_classification
    if column is not None:
        if has_text and (column.kind in {"categorical", "boolean"} or column.n_unique <= 50):
            return TaskType.text_classification
        if column.kind in {"categorical", "boolean"}:
            return TaskType.tabular_classification
        if column.kind == "numeric" and column.n_unique <= 10:
            # a metric named for one kind of task settles a few-valued number (0/1 'approve' judged by precision)
            for_classes = mentioned_metric(instruction, TaskType.tabular_classification, tuple(profile.names))
            for_amounts = mentioned_metric(instruction, TaskType.tabular_regression, tuple(profile.names))
            if for_classes and not for_amounts:
                return TaskType.tabular_classification
            if not for_amounts and not QUANTITY_CUES.search(_without_column_names(text, profile, target)):
                return TaskType.tabular_classification
            # a 0/1 column is a class unless a regression is asked for: 'how many credit hours' there describes an
            # input ('pick out which students compete on a varsity team ..., how many credit hours they had')
            if column.n_unique == 2 and not for_amounts and not re.search(r"\bregress", text):
                return TaskType.tabular_classification
        if column.kind == "numeric":
            return TaskType.tabular_regression
    if any(w in text for w in REGRESSION_WORDS):
        return TaskType.tabular_regression
    return TaskType.tabular_classification


_HANDLERS: dict[str, Callable[..., BaseModel]] = {
    "manager.verify_request": OfflineRules.verify_request,
    "manager.make_plans": OfflineRules.make_plans,
    "manager.verify_execution": OfflineRules.verify_execution,
    "manager.verify_implementation": OfflineRules.verify_implementation,
    "prompt.parse_instruction": OfflineRules.parse_instruction,
    "data.decompose": OfflineRules.decompose_data,
    "data.analyse": OfflineRules.analyse_data,
    "model.decompose": OfflineRules.decompose_model,
    "model.propose": OfflineRules.propose_models,
}


def _write_script(spec: RequirementSpec, outcome: PlanOutcome, skeleton: str, previous_error: str) -> GeneratedScript:
    """The offline brain's script: the skeleton rendered with the chosen plan is already complete."""
    return GeneratedScript(source=skeleton, notes="rendered from the task skeleton")


_HANDLERS["operation.write_script"] = _write_script


class OfflineBrain:
    name = "offline"

    def __init__(self, extra_handlers: dict[str, Callable[..., BaseModel]] | None = None):
        self.handlers = {**_HANDLERS, **(extra_handlers or {})}

    def answer(self, step: AgentStep) -> tuple[BaseModel, Usage]:
        handler = self.handlers.get(step.name)
        if handler is None:
            raise KeyError(f"the offline brain has no rule for step {step.name!r}")
        return handler(**step.inputs), Usage()
