"""The agents' prompt templates in MLflow's prompt registry: a new version whenever a template's text changes.

Each run records the versions it used (run.json `llm.prompt_versions` and an MLflow run tag per prompt). The
registry is only written when a template changed since the last run of this workspace (a local index of
content hashes), so unchanged prompts cost no registry calls."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .agents.brains.base import PROMPTS_DIR
from .settings import point_mlflow_at

PREFIX = "automl-agent"


def prompt_name(template: Path) -> str:
    return f"{PREFIX}.{template.stem}"


def _index_path(workdir: Path, tracking_uri: str) -> Path:
    """One index per tracking store: a workspace that moves to a team server registers its prompts there too."""
    return workdir / "prompt_versions" / f"{hashlib.sha256(tracking_uri.encode()).hexdigest()[:16]}.json"


def sync_prompts(workdir: Path, tracking_uri: str, prompts_dir: Path = PROMPTS_DIR) -> dict[str, str]:
    """Register new versions of changed templates; return {prompt name: version} for every template. Runs started
    together in one workspace take turns (a file lock); runs on other machines that race to create the same prompt
    retry once (the loser adds a version to the prompt the winner created)."""
    from filelock import FileLock

    index_path = _index_path(workdir, tracking_uri)
    index_path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(index_path) + ".lock", timeout=300):
        return _sync(index_path, tracking_uri, prompts_dir)


def _register(name: str, text: str, message: str, tags: dict[str, str]):
    import mlflow
    from mlflow.exceptions import MlflowException

    for attempt in range(2):
        try:
            return mlflow.genai.register_prompt(name=name, template=text, commit_message=message, tags=tags)
        except MlflowException as exc:
            if attempt or "RESOURCE_ALREADY_EXISTS" not in str(exc):
                raise
    raise AssertionError("unreachable")


def _sync(index_path: Path, tracking_uri: str, prompts_dir: Path) -> dict[str, str]:
    try:
        index = json.loads(index_path.read_text()) if index_path.exists() else {}
    except ValueError:
        index = {}
    versions: dict[str, str] = {}
    for template in sorted(prompts_dir.glob("*.txt")):
        text = template.read_text()
        digest = hashlib.sha256(text.encode()).hexdigest()
        name = prompt_name(template)
        known = index.get(name)
        if known and known["sha256"] == digest:
            versions[name] = known["version"]
            continue
        point_mlflow_at(tracking_uri)
        agent = template.stem.removeprefix("system_").split(".", 1)[0]
        registered = _register(name, text, f"{template.name} (sha256 {digest[:12]})",
                               {"agent": agent, "file": template.name, "placeholder_syntax": "string.Template ($name)"})
        versions[name] = str(registered.version)
        index[name] = {"sha256": digest, "version": versions[name]}
    index_path.parent.mkdir(parents=True, exist_ok=True)
    index_path.write_text(json.dumps(index, indent=2))
    return versions
