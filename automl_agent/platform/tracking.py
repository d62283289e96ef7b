"""MLflow as the memory of the run: a parent run per flow run, a nested run per plan, every artifact the agents made.

An explicit MlflowClient is used throughout (plans log from parallel threads; the fluent API keeps
thread-local state)."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import time
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

import mlflow
from mlflow.entities import RunStatus
from mlflow.tracking import MlflowClient

from ..agents.brains.base import Transcript
from ..settings import is_remote_tracking, point_mlflow_at
from ..workspace import RegisteredModel

log = logging.getLogger(__name__)


SCHEMA_METADATA_KEY = "automl_agent_schema"
TRUSTED_MODULES = ("sklearn.", "lightgbm.", "catboost.core.", "numpy.", "scipy.", "collections.", "builtins.",
                   "automl_agent.trainkit.runtime.", "automl_agent.trainkit.graph_model.",
                   "automl_agent.runtime.", "automl_agent.graph_model.")  # the last two: models saved before the move
# the model libraries a delivered model may need beyond the base set, by the module prefix of its types
OPTIONAL_LIBRARIES = {"catboost.": "catboost"}


def trusted_types(model: Any) -> list[str]:
    """Types the delivered model may contain: ML libraries only. A model built by generated code that holds
    anything else (a type that could run code on load) is refused, not delivered."""
    import skops.io

    found = skops.io.get_untrusted_types(data=skops.io.dumps(model))
    refused = [t for t in found if not t.startswith(TRUSTED_MODULES)]
    if refused:
        raise ValueError(f"the trained model contains types outside the ML libraries: {refused}")
    return found


def model_libraries(type_names: list[str]) -> list[str]:
    """The optional model libraries (pip names) that types of a delivered model come from."""
    return sorted({lib for prefix, lib in OPTIONAL_LIBRARIES.items() if any(t.startswith(prefix) for t in type_names)})


def _store_lock(tracking_uri: str):
    """A sqlite store is created (its tables migrated) by the first process that opens it: two runs started at once
    in a new workspace must not both do it. A file lock beside the database serializes the opening; a tracking
    server needs none."""
    import contextlib

    if not tracking_uri.startswith("sqlite:///"):
        return contextlib.nullcontext()
    from filelock import FileLock

    database = Path(tracking_uri.removeprefix("sqlite:///").split("?", 1)[0])
    database.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(database) + ".lock", timeout=300)


class Tracker:
    """One MLflow tracking store: the workspace's sqlite file on a laptop, or a team's tracking server (whose
    artifact proxy then stores every artifact, so any worker that reaches the server reads them)."""

    def __init__(self, tracking_uri: str, experiment: str, artifact_root: Path | None = None,
                 experiment_id: str | None = None):
        self.tracking_uri = tracking_uri
        point_mlflow_at(tracking_uri)
        with _store_lock(tracking_uri):
            self.client = MlflowClient(tracking_uri)
            if experiment_id is not None:
                self.experiment_id = experiment_id
                return
            self.experiment_id = self._experiment(experiment, artifact_root)

    def _experiment(self, experiment: str, artifact_root: Path | None) -> str:
        from mlflow.exceptions import MlflowException

        found = self.client.get_experiment_by_name(experiment)
        if found is not None:
            return found.experiment_id
        try:
            if artifact_root is None or is_remote_tracking(self.tracking_uri):
                return self.client.create_experiment(experiment)
            artifact_root.mkdir(parents=True, exist_ok=True)
            return self.client.create_experiment(experiment, artifact_location=artifact_root.as_uri())
        except MlflowException:  # another process created it in between (a team's server: no lock spans them)
            found = self.client.get_experiment_by_name(experiment)
            if found is None:
                raise
            return found.experiment_id

    @classmethod
    def for_workspace(cls, tracking_uri: str, experiment: str, workdir: Path) -> "Tracker":
        """Local stores keep their artifacts in the workspace; a tracking server keeps them behind its proxy."""
        return cls(tracking_uri, experiment, None if is_remote_tracking(tracking_uri) else workdir / "mlartifacts")

    @classmethod
    def for_artifacts(cls, tracking_uri: str) -> "Tracker":
        """Reads and writes artifacts of existing runs only (a training worker)."""
        return cls(tracking_uri, "", experiment_id="")

    def download(self, run_id: str, artifact_path: str, destination: Path) -> Path:
        destination.mkdir(parents=True, exist_ok=True)
        return Path(mlflow.artifacts.download_artifacts(run_id=run_id, artifact_path=artifact_path,
                                                        dst_path=str(destination), tracking_uri=self.tracking_uri))

    def folder(self, run_id: str, local: Path, artifact_path: str) -> None:
        self.client.log_artifacts(run_id, str(local), artifact_path)

    def start(self, name: str, tags: dict[str, str] | None = None, parent_id: str | None = None) -> str:
        tags = dict(tags or {})
        tags["mlflow.runName"] = name
        if parent_id:
            tags["mlflow.parentRunId"] = parent_id
        return self.client.create_run(self.experiment_id, tags=tags, run_name=name).info.run_id

    def finish(self, run_id: str, ok: bool = True) -> None:
        self.client.set_terminated(run_id, RunStatus.to_string(RunStatus.FINISHED if ok else RunStatus.FAILED))

    def text(self, run_id: str, text: str, path: str) -> None:
        self.client.log_text(run_id, text, path)

    def json(self, run_id: str, payload: Any, path: str) -> None:
        self.client.log_text(run_id, json.dumps(payload, indent=2, default=str), path)

    def file(self, run_id: str, local: Path, folder: str | None = None) -> None:
        self.client.log_artifact(run_id, str(local), folder)

    def metrics(self, run_id: str, values: dict[str, float | None], prefix: str = "") -> None:
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        batch = [Metric(prefix + key, float(value), now, 0) for key, value in values.items()
                 if isinstance(value, (int, float)) and value == value]
        if batch:
            self.client.log_batch(run_id, metrics=batch)

    def dataset_input(self, run_id: str, frame: Any, path: str, name: str) -> None:
        """A table as the run's training dataset input (name, digest, schema; its source the local snapshot)."""
        import mlflow.data
        from mlflow.entities import DatasetInput, InputTag

        dataset = mlflow.data.from_pandas(frame, source=path, name=name)  # type: ignore[attr-defined]  # lazily exported
        self.client.log_inputs(run_id, datasets=[DatasetInput(
            dataset._to_mlflow_entity(), tags=[InputTag("mlflow.data.context", "training")])])

    def params(self, run_id: str, values: dict[str, Any]) -> None:
        """MLflow keeps a parameter's first value: a run resumed with another value (a longer budget) says it in a
        tag `resumed.KEY` instead of failing."""
        logged = self.client.get_run(run_id).data.params
        for key, value in values.items():
            text = str(value)[:500]
            if key not in logged:
                self.client.log_param(run_id, key, text)
            elif logged[key] != text:
                self.client.set_tag(run_id, f"resumed.{key}", text)

    def tags(self, run_id: str, values: dict[str, str]) -> None:
        for key, value in values.items():
            self.client.set_tag(run_id, key, value)

    def transcript(self, run_id: str, transcript: Transcript) -> None:
        """Every rendered prompt and its answer, numbered in call order."""
        for i, record in enumerate(transcript.all_records(), start=1):
            stem = f"agents/{i:02d}_{record.step}"
            prompt = f"# {record.step} ({record.brain})\n\n## system\n\n{record.system}\n\n## prompt\n\n{record.prompt}\n"
            self.text(run_id, prompt, f"{stem}.prompt.md")
            self.json(run_id, {"answer": record.answer, "seconds": record.seconds, "corrections": record.corrections,
                               "prompt_tokens": record.prompt_tokens, "completion_tokens": record.completion_tokens},
                      f"{stem}.answer.json")

    def trace_calls(self, run_id: str, transcript: Transcript, name: str) -> str | None:
        """One MLflow trace per flow run, linked to its MLflow run: a span per agent step with its prompt, answer,
        backend, tokens, cost and cross-check corrections, at the times the calls really happened."""
        records = transcript.all_records()
        if not records:
            return None
        start_ns = records[0].started_ns
        end_ns = max(r.started_ns + int(r.seconds * 1e9) for r in records)
        totals = transcript.totals()
        root = self.client.start_trace(name, span_type="AGENT", inputs={"calls": totals["calls"]},
                                       experiment_id=self.experiment_id, run_id=run_id, start_time_ns=start_ns,
                                       tags={"automl_agent.mlflow_run_id": run_id})
        for r in records:
            agent = r.step.split(".", 1)[0]
            span = self.client.start_span(
                r.step, trace_id=root.trace_id, parent_id=root.span_id, span_type="LLM" if r.prompt_tokens else "AGENT",
                inputs={"system": r.system, "prompt": r.prompt}, start_time_ns=r.started_ns,
                attributes={"agent": agent, "backend": r.brain, "prompt_tokens": r.prompt_tokens,
                            "completion_tokens": r.completion_tokens, "cost_usd": r.cost_usd,
                            "corrections": r.corrections, "prompt_versions": r.prompt_versions,
                            "reasoning_tokens": r.reasoning_tokens, "fallback": r.fallback})
            self.client.end_span(root.trace_id, span.span_id, outputs=r.answer,
                                 end_time_ns=r.started_ns + int(r.seconds * 1e9))
        self.client.end_trace(root.trace_id, outputs=totals, end_time_ns=end_ns)
        self._link_prompts(root.trace_id, {v for r in records for v in r.prompt_versions})
        return root.trace_id

    def _link_prompts(self, trace_id: str, used: set[str]) -> None:
        """The registry's prompt versions the trace's calls used, linked to it (the MLflow UI shows them both ways)."""
        from mlflow.exceptions import MlflowException

        try:
            versions = [self.client.get_prompt_version(*name_version.rsplit("/", 1)) for name_version in sorted(used)]
            if versions:
                self.client.link_prompt_versions_to_trace(versions, trace_id)
        except (MlflowException, ValueError) as exc:  # a link is a convenience: the span attributes carry the versions
            log.warning("could not link prompt versions to trace %s: %s", trace_id, exc)

    def log_model(self, run_id: str, model: Any, example: Any, name: str, requirements: list[str],
                  schema: dict[str, Any], signature: Any = None, description: str = "") -> tuple[RegisteredModel, str]:
        """Log and register the model, without an alias (the champion gate gives it one); the serving schema travels
        in the model's metadata, so a bento can be built from the registry alone (`automl-agent serve
        models:/NAME@champion`). `signature`: what a consumer sends (serving.frames.consumer_signature)."""
        trusted = trusted_types(model)
        requirements = requirements + [f"{lib}=={package_version(lib)}" for lib in model_libraries(trusted)]
        # MLflow prints "Successfully registered..." to stderr itself; the flow reports the registration instead.
        with mlflow.start_run(run_id=run_id), contextlib.redirect_stderr(io.StringIO()):
            info = mlflow.sklearn.log_model(model, name="model", input_example=example, signature=signature,
                                            registered_model_name=name, pip_requirements=requirements,
                                            serialization_format="skops", skops_trusted_types=trusted,
                                            metadata={SCHEMA_METADATA_KEY: schema})
        version = str(info.registered_model_version)
        self.client.set_model_version_tag(name, version, "mlflow_run_id", run_id)
        self.client.set_model_version_tag(name, version, "task", schema.get("task", ""))
        if description:
            self.client.update_model_version(name, version, description=description)
        return RegisteredModel(name=name, version=version, alias=""), f"models:/{name}/{version}"
