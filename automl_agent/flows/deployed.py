"""The deployment's entry (`automl-agent/run`): a run started from the Prefect UI's Run form, the API or a schedule.
Its parameters are the form's fields; a question the run asks pauses the flow run for the answer."""

from __future__ import annotations

from typing import Any, Optional

from prefect import flow
from pydantic import Field

from ..config import current_settings, user_home
from ..console import Reporter
from ..settings import RunOptions, configure_environment
from ..training import chosen_pool
from ..workspace import RunRecord, new_run_id
from .automl import run_automl
from .questions import MAX_QUESTIONS, answered
from .task_runners import ConfiguredTaskRunner


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

    sources: dict[str, Any] = {"retrieval": retrieval} if retrieval else {}  # empty: the worker's setting
    options = RunOptions(instruction=instruction, data_path=data or None, target=target or None, budget_s=budget, llm=llm,
                         n_plans=plans, training_pool=chosen_pool(training_pool),
                         model_name=model_name or None,
                         allow_schema_change=allow_schema_change, **sources,
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
