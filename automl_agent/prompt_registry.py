"""The agents' prompt templates in MLflow's prompt registry: a new version whenever a template's text changes, and
the version a team puts under an alias (`production`, or AUTOML_AGENT_PROMPT_ALIAS) is what runs use.

Each run records the versions it used (run.json `llm.prompt_versions` and an MLflow run tag per prompt). The
registry is only written when a template changed since the last run of this workspace (a local index of
content hashes), so unchanged prompts cost no registry calls."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from string import Template

from .agents.brains.base import PROMPT_PREFIX, PROMPTS_DIR
from .config import current_settings
from .settings import point_mlflow_at

PREFIX = PROMPT_PREFIX
VERSIONS_FILE = "versions.json"  # beside a run's resolved templates: {prompt name: version}


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


def prompt_alias() -> str:
    """The registry alias a team sets on the prompt version runs should use (`production` unless told)."""
    return current_settings().prompt_alias


def placeholder_problem(edited: str, packaged: str) -> str:
    """Why an edited template cannot stand in for the packaged one (it names an input the step does not give, or its
    syntax is broken), or '' when it can. Leaving a placeholder out is allowed: the step then shows less."""
    try:
        names = set(Template(edited).get_identifiers())
    except ValueError as exc:
        return f"its placeholders do not parse ({exc})"
    if not Template(edited).is_valid():
        return "it has a '$' that is not a placeholder (write '$$' for a dollar sign)"
    unknown = names - set(Template(packaged).get_identifiers())
    return f"it names inputs the step does not give: {', '.join('$' + n for n in sorted(unknown))}" if unknown else ""


def resolve_for_run(workdir: Path, tracking_uri: str, run_dir: Path,
                    prompts_dir: Path = PROMPTS_DIR) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """The templates this run uses, written to run_dir/prompts: each the registry's version under the team's alias
    where one is set and fits the step, else the packaged text. Returns ({name: version used}, {name: alias} for
    those taken by alias, warnings for aliased versions that were refused). A stage on any worker reads the same
    texts from the run folder."""
    from mlflow import MlflowClient
    from mlflow.exceptions import MlflowException

    versions = sync_prompts(workdir, tracking_uri, prompts_dir)
    alias, by_alias, warnings = prompt_alias(), {}, []
    client = MlflowClient(tracking_uri)
    target = run_dir / "prompts"
    target.mkdir(parents=True, exist_ok=True)
    for template in sorted(prompts_dir.glob("*.txt")):
        name, text = prompt_name(template), template.read_text()
        try:
            chosen = client.get_prompt_version_by_alias(name, alias)
        except MlflowException:  # no alias on this prompt: the packaged text
            chosen = None
        if chosen is not None and str(chosen.version) != versions.get(name):
            problem = placeholder_problem(chosen.template, text)
            if problem:
                warnings.append(f"prompt {name}@{alias} (version {chosen.version}) not used: {problem}; the packaged "
                                f"text (version {versions.get(name)}) was")
            else:
                text, versions[name], by_alias[name] = chosen.template, str(chosen.version), alias
        (target / template.name).write_text(text)
    (target / VERSIONS_FILE).write_text(json.dumps(versions, indent=2))
    return versions, by_alias, warnings
