"""The workspace: one folder per run with its run.json, scripts, model and demo."""

from __future__ import annotations

import json
import secrets
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from .agents.contracts import SourceReport, SpecAudit
from .errors import UserFacingError


class Standing(BaseModel):
    """Where a new model version stands against the champion it would replace, and why (the champion gate)."""

    alias: Literal["champion", "challenger", "candidate"]
    reason: str
    metric: str
    score: float | None = Field(default=None, description="the new version on its run's held-out rows")
    n_rows: int = 0
    champion_version: str | None = None
    champion_score: float | None = Field(default=None, description="the champion on the same rows")


class RegisteredModel(BaseModel):
    name: str
    version: str
    alias: str
    standing: Standing | None = None


class ConstraintRecord(BaseModel):
    name: str
    op: str
    target: float
    measured: float | None = None
    satisfied: bool | None = Field(default=None, description="None until a model is measured (a dry run)")


class PlanRecord(BaseModel):
    plan_id: int
    title: str
    rationale: str
    model_families: list[str]


class LLMUsage(BaseModel):
    backend: str
    calls: int = 0
    tokens: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = Field(default=0.0, description="at the price table's rates; None when a model's price is unknown")
    cost_at_reference_usd: float = Field(default=0.0, description="what the same tokens would cost on GPT-4o")
    repair_prompt_tokens: int = Field(default=0, description="part of prompt_tokens spent on repair rounds")
    repair_completion_tokens: int = Field(default=0, description="part of completion_tokens spent on repair rounds")
    first_try_cost_at_reference_usd: float = Field(
        default=0.0, description="GPT-4o cost without the repair rounds: a model that answers validly at once")
    by_step: dict[str, dict] = Field(default_factory=dict, description="calls, tokens and cost per agent step")
    offline_fallbacks: list[str] = Field(default_factory=list, description="steps the LLM could not answer validly")
    llm_answered: int = Field(default=0, description="steps an LLM backend answered itself")
    rules_answered: int = Field(default=0, description="steps meant for an LLM that the offline rules answered instead")
    reasoning_tokens: int = Field(default=0, description="part of completion_tokens a reasoning model spent thinking")
    server_adjustments: list[str] = Field(default_factory=list,
                                          description="parameters an LLM server refused during the run, and what was sent instead")

    def brain_line(self) -> str:
        """One line: who answered the agents' steps, and why the rules stood in where they did."""
        line = f"{self.backend}, {self.calls} calls, {self.tokens} tokens"
        if self.reasoning_tokens:
            line += f" ({self.reasoning_tokens} reasoning)"
        if self.llm_answered or self.rules_answered:
            line += f"; {self.llm_answered} steps answered by the LLM, {self.rules_answered} by the offline rules"
            if self.offline_fallbacks:
                line += f" (first: {' '.join(self.offline_fallbacks[0].split())[:160]})"
        return line
    prompt_versions: dict[str, str] = Field(default_factory=dict, description="MLflow prompt registry versions used")
    prompt_aliases: dict[str, str] = Field(default_factory=dict,
                                           description="prompts taken from the registry by alias (a team's edit), not the packaged text")
    max_tokens_per_run: int | None = None


class DataSource(BaseModel):
    """A dataset fetched or found for the run: enough to cite it and to get it again."""
    name: str
    source: str = Field(description="url, sklearn, bundled, openml, hf, kaggle, ...")
    url: str | None = Field(default=None, description="URL, or package:module for one shipped in a package")
    licence: str = "unknown"
    rows: int | None = None
    reason: str = Field(default="", description="why this dataset: the instruction's words it matched")

    @model_validator(mode="before")
    @classmethod
    def _from_url(cls, value: Any) -> Any:  # run.json written before this model held a bare URL
        if isinstance(value, str):
            return {"name": value.rstrip("/").rsplit("/", 1)[-1], "source": "url", "url": value}
        return value


class OpenQuestion(BaseModel):
    """What a run stopped to ask: which column to predict, which columns a limit on the inputs means, or a fact the
    instruction left out (how far apart a table's rows are)."""

    kind: Literal["target", "inputs", "instruction"]
    question: str
    candidates: list[str] = Field(default_factory=list, description="the columns the answer is most likely among")
    hint: str = ""


class RunRecord(BaseModel):
    run_id: str
    status: Literal["running", "planned", "succeeded", "failed", "rejected", "interrupted"] = Field(
        default="running", description="planned: a dry run, which stops after PLAN; interrupted: stopped by Ctrl-C "
                                       "or SIGTERM, nothing registered after that")
    message: str = ""
    question: OpenQuestion | None = Field(default=None, description="set when the run stopped to ask (exit 2; a "
                                                                    "deployment run pauses for the answer)")
    instruction: str
    data_path: str = ""
    data_snapshot: str = Field(default="", description="the run's typed copy of the table (Parquet), which every "
                                                       "stage after INIT reads")
    data_reading: str = Field(default="", description="how the file was read: format, delimiter, encoding ...")
    data_notes: list[str] = Field(default_factory=list, description="what reading and the data checks changed")
    warnings: list[str] = Field(default_factory=list, description="what a user should look at before trusting the "
                                                                 "model (a score too good to be true ...)")
    data_source: DataSource | None = Field(default=None, description="where the data came from when it was not a "
                                                                     "local file: a URL, or a dataset the agent found")
    retrieval: list[SourceReport] = Field(default_factory=list, description="what each knowledge source did")
    training_pool: str | None = Field(default=None, description="the work pool that trained the model; None: locally")
    sandbox: str = Field(default="", description="what isolated the generated scripts: bubblewrap, or the guard "
                                                 "alone and why")
    created_at: str = Field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    task_type: str | None = None
    target: str | None = None
    target_reason: str | None = Field(default=None, description="why this column: the instruction's words, or --target")
    inputs: list[str] = Field(default_factory=list, description="the only columns the model may learn from, where the "
                                                                "instruction limits them; empty: every usable column")
    left_out: list[str] = Field(default_factory=list, description="columns the instruction says not to use")
    audit: SpecAudit | None = Field(default=None, description="each column and bound the instruction names, and where "
                                                              "it went in the spec")
    metric: str | None = None
    metrics: dict[str, float] = Field(default_factory=dict)
    constraints: list[ConstraintRecord] = Field(default_factory=list)
    success_score: float = 0.0
    plans: list[PlanRecord] = Field(default_factory=list, description="the plans of the first PLAN round")
    chosen_plan: str | None = None
    chosen_reason: str | None = Field(default=None, description="why the manager chose that plan")
    best_model: str | None = None
    revisions: int = 0
    corrections: list[str] = Field(default_factory=list)
    resumed_stages: list[str] = Field(default_factory=list)
    mlflow_tracking_uri: str = ""
    mlflow_run_id: str | None = None
    prefect_flow_run_id: str | None = None
    prefect_ui_url: str | None = None
    registered_model: RegisteredModel | None = None
    bento_tag: str | None = None
    script_path: str | None = None
    demo_path: str | None = None
    report_path: str | None = None
    timings: dict[str, float] = Field(default_factory=dict)
    llm: LLMUsage = Field(default_factory=lambda: LLMUsage(backend="offline"))


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class Workspace:
    def __init__(self, root: Path):
        self.root = root
        self.runs = root / "runs"

    def run_dir(self, run_id: str) -> Path:
        from .settings import RUN_ID

        if not RUN_ID.fullmatch(run_id):
            raise UserFacingError(f"{run_id!r} is not a run id (letters, digits, '.', '_' and '-'; no '/' or '..').",
                                  "List the runs with `automl-agent runs`.")
        return self.runs / run_id

    def save(self, record: RunRecord) -> Path:
        folder = self.run_dir(record.run_id)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "run.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(record.model_dump_json(indent=2))
        tmp.replace(path)
        return path

    def load(self, run_id: str) -> RunRecord:
        path = self.run_dir(run_id) / "run.json"
        if not path.exists():
            known = ", ".join(r.run_id for r in self.list()[-5:]) or "none yet"
            raise UserFacingError(f"No run {run_id!r} in {self.root}.",
                                  f"Recent runs: {known}. List them with `automl-agent runs` (and --workdir if you used one).")
        try:
            return RunRecord.model_validate_json(path.read_text())
        except ValueError as exc:
            raise UserFacingError(f"The record of run {run_id!r} ({path}) is damaged and cannot be read: "
                                  f"{str(exc).splitlines()[0]}.",
                                  "Start a new run (a new --run-id); the damaged folder can be deleted.") from None

    def list(self) -> list[RunRecord]:
        records = []
        for path in sorted(self.runs.glob("*/run.json")):
            try:
                records.append(RunRecord.model_validate_json(path.read_text()))
            except ValueError:
                continue
        return sorted(records, key=lambda r: r.created_at)

    def write_json(self, run_id: str, name: str, payload: Any) -> Path:
        path = self.run_dir(run_id) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(payload, indent=2, default=str))
        return path


def describe_inputs(inputs: list[str], left_out: list[str]) -> str:
    """'only Altitude, Lateral', 'every usable column but id, weight', 'every usable column'."""
    if inputs:
        return "only " + ", ".join(inputs)
    return "every usable column" + (" but " + ", ".join(left_out) if left_out else "")
