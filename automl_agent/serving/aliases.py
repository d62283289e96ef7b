"""Moving a registered model's aliases, with the reason kept in MLflow: on the version (tags `automl.alias`,
`automl.alias_reason`, ...) and, for @champion, in the registered model's history (tag `automl.champion_history`,
newest last), which `automl-agent models rollback` reads."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..errors import UserFacingError
from ..reporting.evidence import HeldOutEvidence, collect
from ..workspace import Standing
from .champion import Rival, contract_difference, input_contract

HISTORY_TAG = "automl.champion_history"


class VersionRow(BaseModel):
    version: str
    aliases: list[str]
    created: str
    run_id: str
    task: str
    score: str
    reason: str = ""
    last_move: str = ""


class ChampionMove(BaseModel):
    version: str
    previous: str | None
    at: str
    by: str
    reason: str


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def champion_version(client: Any, name: str) -> str | None:
    from mlflow.exceptions import MlflowException

    try:
        return str(client.get_model_version_by_alias(name, "champion").version)
    except MlflowException:
        return None


def version_schema(name: str, version: str) -> dict[str, Any]:
    """The serving schema automl-agent stored with the version; {} for a version it did not register."""
    import mlflow

    from ..platform.tracking import SCHEMA_METADATA_KEY

    try:
        info = mlflow.models.get_model_info(f"models:/{name}/{version}")
    except Exception:  # noqa: BLE001 - not an MLflow model (registered by hand from any artifact)
        return {}
    return (info.metadata or {}).get(SCHEMA_METADATA_KEY) or {}


def rival(client: Any, name: str, *, task: str, data_path: str, attempt: Path, schema: dict[str, Any],
          pos_label: str | None) -> Rival | None:
    """The current champion, measured on the new version's held-out rows when it takes the same inputs."""
    import mlflow

    version = champion_version(client, name)
    if version is None:
        return None
    schema_then = version_schema(name, version)
    if not schema_then:
        return Rival(version=version, schema_contract={}, unmeasured="its serving schema could not be read")
    contract = input_contract(schema_then)
    if contract != input_contract(schema):
        return Rival(version=version, schema_contract=contract)
    try:
        model = mlflow.pyfunc.load_model(f"models:/{name}/{version}").get_raw_model()
    except Exception as exc:  # noqa: BLE001
        return Rival(version=version, schema_contract=contract, unmeasured=f"its model could not be loaded: {exc}")
    evidence: HeldOutEvidence = collect(model, task, data_path, attempt, schema, pos_label=pos_label, pictures=False)
    return Rival(version=version, schema_contract=contract, evidence=evidence, unmeasured=evidence.unavailable)


def history(client: Any, name: str) -> list[ChampionMove]:
    tags = client.get_registered_model(name).tags or {}
    try:
        return [ChampionMove.model_validate(m) for m in json.loads(tags.get(HISTORY_TAG, "[]"))]
    except (ValueError, TypeError):
        return []


def move(client: Any, name: str, version: str, alias: str, reason: str, *, by: str,
         scores: dict[str, str] | None = None) -> None:
    """Point `alias` at `version` and record why; a champion move is appended to the model's history."""
    previous = champion_version(client, name) if alias == "champion" else None
    if alias == "champion":  # a champion is no longer anyone's challenger or candidate
        for other, holder in (client.get_registered_model(name).aliases or {}).items():
            if other != "champion" and str(holder) == version:
                client.delete_registered_model_alias(name, other)
    client.set_registered_model_alias(name, alias, version)
    tags = {"automl.alias": alias, "automl.alias_reason": reason[:4900], "automl.alias_at": _now(), "automl.alias_by": by}
    for key, value in {**tags, **(scores or {})}.items():
        client.set_model_version_tag(name, version, key, value)
    if alias == "champion" and previous != version:
        moves = history(client, name) + [ChampionMove(version=version, previous=previous, at=_now(), by=by,
                                                      reason=reason[:300])]
        value = json.dumps([m.model_dump() for m in moves])
        while len(value) > 4900 and len(moves) > 1:
            moves = moves[1:]
            value = json.dumps([m.model_dump() for m in moves])
        client.set_registered_model_tag(name, HISTORY_TAG, value)


def record_standing(client: Any, name: str, version: str, standing: Standing) -> None:
    scores = {"automl.gate_metric": standing.metric, "automl.gate_alias": standing.alias,
              "automl.gate_reason": standing.reason[:4900]}
    if standing.score is not None:
        scores["automl.gate_score"] = f"{standing.score:.6g}"
    if standing.champion_version:
        scores["automl.compared_with"] = standing.champion_version
    if standing.champion_score is not None:
        scores["automl.champion_score"] = f"{standing.champion_score:.6g}"
    move(client, name, version, standing.alias, standing.reason, by="automl-agent run", scores=scores)


def _client(tracking_uri: str) -> Any:
    from mlflow.tracking import MlflowClient

    from ..settings import point_mlflow_at

    point_mlflow_at(tracking_uri)
    return MlflowClient(tracking_uri)


def _known(client: Any, name: str, tracking_uri: str) -> None:
    from mlflow.exceptions import MlflowException

    try:
        client.get_registered_model(name)
    except MlflowException:
        known = ", ".join(m.name for m in client.search_registered_models(max_results=50)) or "none"
        raise UserFacingError(f"No registered model {name!r} at {tracking_uri}.",
                              f"Registered models there: {known}.") from None


def registered_names(tracking_uri: str) -> list[str]:
    return sorted(m.name for m in _client(tracking_uri).search_registered_models())


def history_of(tracking_uri: str, name: str) -> list[ChampionMove]:
    return history(_client(tracking_uri), name)


def list_versions(tracking_uri: str, name: str) -> list[VersionRow]:
    client = _client(tracking_uri)
    _known(client, name, tracking_uri)
    holders: dict[str, list[str]] = {}
    for alias, version in (client.get_registered_model(name).aliases or {}).items():
        holders.setdefault(str(version), []).append(alias)
    rows = []
    for mv in sorted(client.search_model_versions(f"name='{name}'"), key=lambda v: int(v.version)):
        tags = mv.tags or {}
        score = f"{tags['automl.gate_metric']} {tags['automl.gate_score']}" if "automl.gate_score" in tags else ""
        rows.append(VersionRow(version=str(mv.version), aliases=sorted(holders.get(str(mv.version), [])),
                               created=time.strftime("%Y-%m-%d %H:%M", time.gmtime(mv.creation_timestamp / 1000)),
                               run_id=mv.run_id or "", task=tags.get("task", ""), score=score,
                               reason=tags.get("automl.gate_reason", ""),
                               last_move=tags.get("automl.alias_reason", "") if tags.get("automl.alias_by", "").startswith(
                                   "automl-agent models") else ""))
    return rows


def promote(tracking_uri: str, name: str, version: str, reason: str, allow_schema_change: bool = False) -> ChampionMove:
    """Give `version` the @champion alias by hand, whatever the gate's scores said; the reason is required and
    recorded. A version that takes other inputs than the current champion needs `allow_schema_change`: its callers
    would break."""
    from mlflow.exceptions import MlflowException

    if not reason.strip():
        raise UserFacingError("A promotion needs a reason: it is recorded with the move.",
                              'Add --reason "...", e.g. --reason "approved after the March review".')
    client = _client(tracking_uri)
    _known(client, name, tracking_uri)
    try:
        client.get_model_version(name, version)
    except MlflowException:
        versions = ", ".join(str(v.version) for v in client.search_model_versions(f"name='{name}'"))
        raise UserFacingError(f"{name} has no version {version}.", f"Its versions: {versions}.") from None
    current = champion_version(client, name)
    if current and current != version:
        changed = contract_difference(input_contract(version_schema(name, current)),
                                      input_contract(version_schema(name, version)))
        if changed and not allow_schema_change:
            raise UserFacingError(f"v{version} takes other inputs than champion v{current} ({changed}): every caller "
                                  f"of models:/{name}@champion would have to change.",
                                  "If they will, add --allow-schema-change; otherwise register it under another name.")
        if changed:
            reason = f"{reason.strip()} (inputs changed: {changed})"
    move(client, name, version, "champion", f"promoted by hand: {reason.strip()}", by="automl-agent models promote")
    return history(client, name)[-1]


def champion_line(moves: list[ChampionMove]) -> list[str]:
    """The champions in order of succession, a rollback undoing the moves after the version it returns to: the
    last is the current champion, the one before it is where a rollback goes."""
    line: list[str] = []
    for m in moves:
        if m.by.endswith("rollback") and m.version in line:
            del line[line.index(m.version) + 1:]
        else:
            line.append(m.version)
    return line


def rollback(tracking_uri: str, name: str, version: str | None, reason: str) -> ChampionMove:
    """Give @champion back to `version`, or to the champion before the current one (from the recorded history)."""
    client = _client(tracking_uri)
    _known(client, name, tracking_uri)
    current = champion_version(client, name)
    if version is None:
        line = champion_line(history(client, name))
        if len(line) < 2 or line[-1] != current:
            raise UserFacingError(f"{name} has no earlier champion on record to roll back to (@champion is "
                                  f"v{current}).", f"Name the version: automl-agent models rollback {name} VERSION.")
        version = line[-2]
    why = f"rolled back from v{current}" + (f": {reason.strip()}" if reason.strip() else "")
    move(client, name, version, "champion", why, by="automl-agent models rollback")
    return history(client, name)[-1]
