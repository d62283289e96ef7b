"""Run options: the CLI's flags, validated, with defaults that suit a 2-core laptop."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic import BaseModel, Field, field_validator

from .config import current_settings


RUN_ID = re.compile(r"(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
MAX_BUDGET_S = 7 * 86400
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")


class RunOptions(BaseModel):
    instruction: str
    data_path: str | None = Field(default=None, description="file, URL, openml://, hf:// or kaggle://; None: the "
                                                             "data agent finds the dataset the instruction names")
    workdir: str = ".automl"
    target: str | None = None
    budget_s: float = Field(default=60.0, description="seconds for the training script's HPO and fit (at most a week)")
    n_plans: int = Field(default=3, ge=1, le=8)
    top_k: int = Field(default=3, ge=1, le=5)
    max_revisions: int = Field(default=1, ge=0, le=5)
    llm: str = "offline"
    llm_by_agent: dict[str, str] = Field(default_factory=dict, description="agent -> brain spec, e.g. manager=gguf:...")
    llm_strict: bool = Field(default=False, description="a step the LLM cannot answer stops the run (no offline fallback)")
    reasoning_effort: str | None = Field(default=None, description="reasoning models' effort: minimal, low, medium, high")
    max_tokens_per_run: int | None = Field(default=None, gt=0)
    code_attempts: int = Field(default=2, ge=1, le=5, description="tries an LLM gets to write a script that runs")
    memory_mb: int = Field(default=8192, ge=512)
    n_jobs: int = Field(default_factory=lambda: os.cpu_count() or 1)
    run_id: str | None = None
    model_name: str | None = None
    allow_schema_change: bool = Field(default=False, description="a version whose inputs differ from the champion's "
                                                                  "may take @champion (callers must change too)")
    seed: int = 0
    tracking_uri: str | None = Field(default=None, description="MLflow tracking URI; None: MLFLOW_TRACKING_URI, "
                                                               "else the workspace's sqlite file")
    training_pool: str | None = Field(default=None, description="Prefect work pool that trains the generated "
                                                                "script as its own flow run; None: a local subprocess")
    dry_run: bool = Field(default=False, description="stop after INIT and PLAN: no training, registering or serving")
    retrieval: str = Field(default_factory=lambda: current_settings().retrieval or "auto",
                           description="auto (what is configured and reachable), none, or a list of "
                                       "arxiv,kaggle,hf,web,openml")
    retrieval_budget_s: float = Field(default=20.0, gt=0, le=600, description="seconds for all retrieval together")

    @field_validator("instruction")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the instruction is empty; say what to predict, e.g. \"Predict churn; F1 at least 0.6\"")
        return value.strip()

    @field_validator("budget_s")
    @classmethod
    def _sensible_budget(cls, value: float) -> float:
        if not 1 <= value <= MAX_BUDGET_S:
            raise ValueError(f"{value:g} s is not a budget: give the seconds the search may take, from 1 to "
                             f"{MAX_BUDGET_S} (a week), e.g. --budget 60")
        return value

    @field_validator("run_id")
    @classmethod
    def _safe_run_id(cls, value: str | None) -> str | None:
        """A run id names a folder inside the workspace: never a path out of it."""
        if value is not None and not RUN_ID.fullmatch(value):
            raise ValueError(f"{value!r} is not a run id: use letters, digits, '.', '_' and '-' (up to 100, starting "
                             "with a letter or digit; no '/', spaces or '..'), e.g. churn-2024-06")
        return value

    @field_validator("model_name")
    @classmethod
    def _registrable_name(cls, value: str | None) -> str | None:
        """Checked before any work: a name the registry or the bento store refuses would end a run after training."""
        if value is not None and not MODEL_NAME.fullmatch(value):
            raise ValueError(f"{value!r} cannot be a registered model name: use letters, digits, '.', '_' and '-' "
                             "(up to 63, starting with a letter or digit), e.g. churn-model")
        return value

    @field_validator("retrieval")
    @classmethod
    def _known_sources(cls, value: str) -> str:
        from .retrieval import parse_selection

        parse_selection(value)  # a UserFacingError names the unknown source
        return value.strip().lower() or "auto"

    @property
    def workdir_path(self) -> Path:
        return Path(self.workdir).expanduser().resolve()

    @property
    def resolved_tracking_uri(self) -> str:
        return self.tracking_uri or os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(self.workdir_path)


def default_tracking_uri(workdir: Path) -> str:
    """One laptop: MLflow on a sqlite file in the workspace."""
    return f"sqlite:///{workdir / 'mlflow.db'}"


def is_remote_tracking(uri: str) -> bool:
    """A tracking server (artifacts go through its proxy) rather than a local store."""
    return uri.startswith(("http://", "https://", "databricks"))


def point_mlflow_at(uri: str) -> None:
    """Set MLflow's process-wide tracking URI without leaving it in MLFLOW_TRACKING_URI (MLflow exports it there
    for subprocesses): that variable is the user's choice, and a later run in this process, in another workspace,
    must not mistake this run's store for it."""
    import mlflow

    before = os.environ.get("MLFLOW_TRACKING_URI")
    mlflow.set_tracking_uri(uri)
    if before is None:
        os.environ.pop("MLFLOW_TRACKING_URI", None)
    else:
        os.environ["MLFLOW_TRACKING_URI"] = before


def configure_environment(workdir: Path) -> None:
    """Point Prefect, MLflow and BentoML at the workspace; quiet their telemetry. Call before importing them."""
    workdir.mkdir(parents=True, exist_ok=True)
    defaults = {
        "PREFECT_HOME": str(workdir / "prefect"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_LOGGING_LEVEL": "CRITICAL",  # stage errors are reported by the flow, tracebacks go to error.log
        # ...but the flow run's own lines (the run's stages) reach the Prefect UI at INFO (the CLI keeps them off
        # the terminal, which shows its own)
        "PREFECT_LOGGING_LOGGERS_PREFECT_FLOW_RUNS_LEVEL": "INFO",
        "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true",
        "PREFECT_LOCAL_STORAGE_PATH": str(workdir / "prefect" / "results"),
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
        "BENTOML_HOME": str(workdir / "bentoml"),
        "BENTOML_DO_NOT_TRACK": "true",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "MLFLOW_ENABLE_ASYNC_TRACE_LOGGING": "false",
        # MLflow's telemetry sets and unsets an environment variable its REST calls read: with two runs' threads in
        # one process that raced into KeyError('_MLFLOW_TELEMETRY_SESSION_ID') (4 runs at once on the stack)
        "MLFLOW_DISABLE_TELEMETRY": "true",
        "MLFLOW_LOGGING_LEVEL": "WARNING",
        "GIT_PYTHON_REFRESH": "quiet",
        "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false",
        "TOKENIZERS_PARALLELISM": "false",
    }
    for key, value in defaults.items():
        os.environ.setdefault(key, value)
    import logging

    for name in ("mlflow", "bentoml", "alembic", "httpx"):
        logging.getLogger(name).setLevel(logging.WARNING)


def check_workspace(path: Path) -> None:
    """The workspace folder exists or can be made, and can be written to: said before any work starts."""
    from .errors import UserFacingError

    if path.exists() and not path.is_dir():
        raise UserFacingError(f"The workspace {path} is a file, not a folder.",
                              "Pass --workdir a folder (it is created when missing), e.g. --workdir .automl")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise UserFacingError(f"The workspace {path} cannot be written to ({exc.strerror or exc}).",
                              "Pass --workdir a folder you can write to, e.g. --workdir ~/automl-work") from None
