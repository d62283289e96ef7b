"""Typed contracts: every message between agents and stages is one of these models."""

from __future__ import annotations

from pathlib import Path

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Contract(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskType(str, Enum):
    tabular_classification = "tabular_classification"
    tabular_regression = "tabular_regression"
    tabular_clustering = "tabular_clustering"
    image_classification = "image_classification"
    text_classification = "text_classification"
    time_series_forecasting = "time_series_forecasting"
    node_classification = "node_classification"


SUPPORTED_TASKS = {
    TaskType.tabular_classification,
    TaskType.tabular_regression,
    TaskType.tabular_clustering,
    TaskType.text_classification,
    TaskType.time_series_forecasting,
    TaskType.image_classification,
    TaskType.node_classification,
}
CLASSIFICATION_TASKS = {TaskType.tabular_classification, TaskType.text_classification, TaskType.image_classification,
                        TaskType.node_classification}

Op = Literal[">=", "<=", ">", "<"]


class Constraint(Contract):
    """One requirement the delivered model must meet, checked against a measured number."""

    name: str = Field(description="metric or complexity measure, e.g. f1, rmse, latency_ms, model_size_mb")
    op: Op
    target: float
    kind: Literal["performance", "complexity"] = "performance"
    phrase: str = Field(default="", description="the words of the instruction this came from")

    def is_met(self, measured: float | None) -> bool:
        if measured is None:
            return False
        return {
            ">=": measured >= self.target,
            "<=": measured <= self.target,
            ">": measured > self.target,
            "<": measured < self.target,
        }[self.op]

    def describe(self) -> str:
        return f"{self.name} {self.op} {self.target:g}"


# ---------------------------------------------------------------- request verification
class RequestVerdict(Contract):
    relevant: bool = Field(description="the request asks for a machine-learning task")
    adequate: bool = Field(description="there is enough to start: a goal and data")
    feedback: str = Field(default="", description="what is missing or wrong, addressed to the user")

    @property
    def ok(self) -> bool:
        return self.relevant and self.adequate


# ---------------------------------------------------------------- requirement spec (the paper's keys)
class UserSpec(Contract):
    intent: Literal["build", "consult", "unclear"] = "build"
    expertise: Literal["beginner", "medium", "expert"] = "medium"


class ProblemSpec(Contract):
    area: str = "tabular data analysis"
    downstream_task: TaskType
    application_domain: str = ""
    description: str = ""
    metric: str = Field(description="the primary metric the model is selected on")
    metric_direction: Literal["maximize", "minimize"] = "maximize"
    constraints: list[Constraint] = Field(default_factory=list)
    n_clusters: int | None = None
    input_seq_len: int | None = Field(default=None, description="forecasting: history length the model sees")
    pred_seq_len: int | None = Field(default=None, description="forecasting: number of future steps to predict")


class DatasetSpec(Contract):
    name: str = ""
    modality: str = "tabular"
    source: str = Field(default="user-upload", description="where the data comes from")
    path: str = ""
    target: str | None = Field(default=None, description="target column (held labels for clustering)")
    target_reason: str = Field(default="", description="why this column (filled in by the cross-check)")
    features: list[str] = Field(default_factory=list,
                                description="the only columns the instruction allows as inputs; empty: every usable one")
    excluded: list[str] = Field(default_factory=list, description="columns the instruction says not to use")
    left_out: dict[str, str] = Field(default_factory=dict, description="columns set aside, with why: by the data "
                                                                        "checks (a column that reproduces the target), "
                                                                        "or said not to be used where the inputs are "
                                                                        "listed anyway")
    preprocessing: list[str] = Field(default_factory=list)
    augmentation: list[str] = Field(default_factory=list)


class ModelSpec(Contract):
    name: str = ""
    family: str = ""
    type: str = ""


class KnowledgeSpec(Contract):
    hints: list[str] = Field(default_factory=list)


class ServiceSpec(Contract):
    target_device: str = "cpu"
    inference_engine: str = "bentoml"
    demo: str = "gradio"


class Mention(Contract):
    """One thing the instruction says and where it went in the spec."""

    words: str = Field(description="as the instruction (in its canonical form) says it")
    kind: str = Field(description="column or bound")
    placed_as: str | None = Field(description="target, input, left out, compared label, time, constraint NAME, "
                                              "horizon, lookback, clusters; None when not placed")


class SpecAudit(Contract):
    """What the instruction said and where each part went; `unplaced` is what stops the run with a question."""

    language: str = "en"
    read_as: str = Field(default="", description="the instruction in the form the rules read")
    rewrites: list[str] = Field(default_factory=list)
    mentions: list[Mention] = Field(default_factory=list)

    @property
    def unplaced(self) -> list[Mention]:
        return [m for m in self.mentions if m.placed_as is None]


class RequirementSpec(Contract):
    user: UserSpec = Field(default_factory=UserSpec)
    problem: ProblemSpec
    dataset: DatasetSpec
    model: ModelSpec = Field(default_factory=ModelSpec)
    knowledge: KnowledgeSpec = Field(default_factory=KnowledgeSpec)
    service: ServiceSpec = Field(default_factory=ServiceSpec)
    audit: SpecAudit | None = Field(default=None, description="what the instruction said and where each part went")


# ---------------------------------------------------------------- data profile (measured, not guessed)
class ColumnProfile(Contract):
    name: str
    dtype: str
    kind: Literal["numeric", "categorical", "boolean", "text", "datetime", "identifier", "constant", "image"]
    missing: int
    n_unique: int
    examples: list[str] = Field(default_factory=list)
    minority_share: float | None = Field(default=None, description="two-valued columns: the rarer value's share")
    collapsed_in: list[str] = Field(default_factory=list, description="columns that say the same answer in fewer values "
                                    "(each of this column's values is always one of theirs: 'no/perhaps/yes' and 'N/Y')")


class GraphProfile(Contract):
    """A graph's shape, measured: what the agents plan node classification on (the node table has one row per node)."""

    format: Literal["planetoid", "edge_list"]
    node_column: str = Field(description="the node table's column of node ids")
    n_nodes: int
    n_edges: int = Field(description="undirected edges")
    n_features: int
    feature_kind: str
    feature_names: list[str] = Field(default_factory=list, description="the first feature columns, when named")
    n_classes: int
    labelled_nodes: int
    own_split: dict[str, int] | None = Field(default=None, description="node counts of the dataset's own masks")
    mean_degree: float
    isolated_nodes: int
    label_homophily: float | None = Field(
        default=None, description="share of edges between labelled non-test nodes that join two nodes of one class")


class TableReading(Contract):
    """How the table was read: the decisions a user may want to check, shown by the run and kept beside the
    snapshot every later stage reads."""
    file: str
    format: str = Field(description="csv, json lines, json, parquet or excel")
    compression: str | None = None
    encoding: str | None = None
    delimiter: str | None = None
    decimal: str | None = None
    header: bool = True
    skipped_lines: int = Field(default=0, description="lines above the table (a title, comments) left out")
    notes: list[str] = Field(default_factory=list, description="each change made to what the file says, per column")

    def summary(self) -> str:
        """'csv, ';'-separated, decimal comma, cp1252' and the like: what differs from a plain UTF-8 CSV."""
        parts = [self.format]
        if self.compression:
            parts.append(f"{self.compression}-compressed")
        if self.delimiter and self.delimiter != ",":
            parts.append({"\t": "tab", ";": "';'", "|": "'|'"}.get(self.delimiter, repr(self.delimiter)) + "-separated")
        if self.decimal == ",":
            parts.append("decimal comma")
        if self.encoding and self.encoding.replace("_", "-").lower() not in {"utf-8", "ascii"}:
            parts.append(self.encoding)
        if not self.header:
            parts.append("no header row")
        if self.skipped_lines:
            parts.append(f"{self.skipped_lines} line(s) above the table skipped")
        return ", ".join(parts)


class DataProfile(Contract):
    path: str
    n_rows: int
    n_columns: int
    columns: list[ColumnProfile]
    target_candidates: list[str] = Field(default_factory=list)
    class_balance: dict[str, float] | None = None
    graph: GraphProfile | None = Field(default=None, description="node classification: the graph's shape")
    reading: TableReading | None = Field(default=None, description="how the file was read (tables only)")
    time_step_s: float | None = Field(default=None, description="the usual gap between a time column's successive "
                                                               "times, in seconds (tables with a time column)")

    def column(self, name: str) -> ColumnProfile | None:
        return next((c for c in self.columns if c.name == name), None)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]


# ---------------------------------------------------------------- knowledge and plans
class KnowledgeItem(Contract):
    source: str
    title: str
    summary: str
    url: str | None = None
    kind: str = Field(default="note", description="paper, notebook, dataset, model, web page, flow or note")
    facts: dict[str, str] = Field(default_factory=dict, description="key facts: licence, downloads, score, size ...")


class SourceReport(Contract):
    """What one retrieval source did in one run: recorded in run.json and MLflow, shown by `show`."""
    source: str
    query: str = ""
    items: int = 0
    cached: bool = False
    seconds: float = 0.0
    error: str | None = Field(default=None, description="null when the source answered")

    def line(self) -> str:
        """'arxiv: 2 items in 0.3 s', 'hf: 3 items from the cache', or 'kaggle: no credentials (...)'."""
        if self.error:
            return f"{self.source}: {self.error}"
        where = "from the cache" if self.cached else f"in {self.seconds:.1f} s"
        return f"{self.source}: {self.items} items {where}"


class Knowledge(Contract):
    items: list[KnowledgeItem] = Field(default_factory=list)
    failures: list[str] = Field(default_factory=list)
    sources: list[SourceReport] = Field(default_factory=list)
    brief: str = Field(default="", description="the short, cited summary the planner reads (quoted data)")
    family_priors: dict[str, float] = Field(
        default_factory=dict, description="model key -> evidence weight from retrieval (e.g. OpenML's best flows)")


class Plan(Contract):
    plan_id: int
    title: str
    rationale: str
    data_steps: list[str]
    model_families: list[str] = Field(description="model keys from the knowledge base, best first")
    hpo_strategy: str = "optuna TPE within the time budget"


class PlanSet(Contract):
    plans: list[Plan]


class DecomposedPlan(Contract):
    agent: Literal["data", "model"]
    subtasks: list[str]


class DataAnalysis(Contract):
    """The data agent's outcome, grounded on the measured profile."""

    summary: str
    features: list[str]
    dropped: dict[str, str] = Field(default_factory=dict, description="column -> why it is dropped")
    numeric: list[str]
    categorical: list[str]
    text: list[str] = Field(default_factory=list, description="free-text columns (text classification)")
    time_column: str | None = Field(default=None, description="forecasting: the column that orders the series")
    image_column: str | None = Field(default=None, description="image classification: the column of image paths")
    node_column: str | None = Field(default=None, description="node classification: the column of node ids")
    preprocessing: list[str]
    class_imbalance: float | None = None


class Candidate(Contract):
    model: str = Field(description="a model key of the knowledge base")
    hyperparameters: dict[str, Any] = Field(
        default_factory=dict, description="starting values that differ from the knowledge's defaults (the rest keep them)")
    search_space: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description='only the ranges you narrow, as {"type": "int" or "float", "low", "high", "log"} '
                                          'or {"type": "categorical", "choices"}; the others are searched as known')
    expected_metric: float | None = None
    expected_latency_ms: float | None = None
    expected_size_mb: float | None = None
    reason: str = ""


class ModelProposal(Contract):
    """The model agent's outcome: the top-k candidates for one plan."""

    candidates: list[Candidate]
    summary: str = ""


class PlanOutcome(Contract):
    plan: Plan
    data: DataAnalysis
    model: ModelProposal


class ExecutionVerdict(Contract):
    passed: list[int] = Field(description="ids of plans whose expected outcome meets the requirements")
    best_plan_id: int
    reason: str


class PipelineScript(Contract):
    version: int
    path: str
    source: str
    author: str = Field(description="who wrote it: skeleton renderer or the brain")
    attempt: int = Field(default=1, description="code attempt within this version (LLM authors get several)")


def attempt_dir(script_path: str | Path) -> Path:
    """Where the sandbox runs a script and leaves its outputs: <run>/attempt_v1 for <run>/scripts/train_v1.py,
    attempt_v1_a2 for train_v1_a2.py, ..."""
    script = Path(script_path)
    return script.parents[1] / script.stem.replace("train_", "attempt_", 1)


class PipelineResult(Contract):
    ok: bool
    returncode: int
    duration_s: float
    log_path: str
    error: str = ""
    results: dict[str, Any] = Field(default_factory=dict)
    workdir: str = Field(default="", description="the folder holding results.json and model/")
    sandbox: str = Field(default="", description="the layer that held the script: bubblewrap or guard")
    stopped_because: str = Field(default="", description="why the sandbox stopped the script, when it did")


class ConstraintCheck(Contract):
    name: str
    op: str
    target: float
    measured: float | None
    satisfied: bool


class ImplementationVerdict(Contract):
    passed: bool
    checks: list[ConstraintCheck] = Field(default_factory=list)
    reason: str
    manager_opinion: str = ""


class ManagerOpinion(Contract):
    approve: bool
    reason: str


class ScriptEdit(Contract):
    find: str = Field(description="an exact excerpt of the skeleton as shown, found once in it")
    replace: str = Field(description="what the excerpt becomes")


class GeneratedScript(Contract):
    """The operation agent's script: written out whole, or as edits to the skeleton it was shown (fewer tokens
    when a few changes implement the plan)."""

    source: str = Field(default="", description="the complete Python training script; empty when you give edits")
    edits: list[ScriptEdit] = Field(default_factory=list, description="changes to the skeleton, applied in order")
    notes: str = ""

    @model_validator(mode="after")
    def _says_what_the_script_is(self):
        if not self.source.strip() and not self.edits:
            raise ValueError("give the complete script in 'source' or at least one edit of the skeleton in 'edits'")
        return self
