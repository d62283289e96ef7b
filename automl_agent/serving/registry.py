"""Serving from the model registry: `models:/NAME@ALIAS` resolved now, a bento built for that version once.

Promoting a version (moving the `champion` alias in MLflow) is what the next `serve models:/NAME@champion`
follows; the bento of a version already built is reused (its labels name the registry and the version).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserFacingError
from ..monitoring.reference import registered_reference
from ..platform.model_registry import resolve_version
from ..settings import point_mlflow_at
from . import packaging

@dataclass
class RegisteredBento:
    name: str
    version: str
    bento_tag: str
    built: bool


def registry_label(tracking_uri: str) -> str:
    return hashlib.sha256(tracking_uri.encode()).hexdigest()[:12]


def _existing_bento(label: str, version_label: str) -> str | None:
    import bentoml

    for bento in sorted(bentoml.bentos.list(), key=lambda b: b.info.creation_time, reverse=True):
        labels = bento.info.labels or {}
        if labels.get("registry") == label and labels.get("registered_model") == version_label:
            return str(bento.tag)
    return None


def bento_for_registered(uri: str, tracking_uri: str, workdir: Path) -> RegisteredBento:
    import mlflow

    from ..platform.tracking import SCHEMA_METADATA_KEY

    name, version = resolve_version(uri, tracking_uri)
    version_label = packaging.safe_name(f"{name}:{version}")
    label = registry_label(tracking_uri)
    found = _existing_bento(label, version_label)
    if found:
        return RegisteredBento(name, version, found, built=False)
    point_mlflow_at(tracking_uri)
    model_uri = f"models:/{name}/{version}"
    schema = (mlflow.models.get_model_info(model_uri).metadata or {}).get(SCHEMA_METADATA_KEY)
    if not schema:
        raise UserFacingError(f"{model_uri} carries no serving schema (it was not registered by automl-agent).",
                              "Serve a version that an automl-agent run registered.")
    build_dir = workdir / "registry-bentos" / version_label
    reference = registered_reference(tracking_uri, name, version, workdir / "registry-bentos" / f"{version_label}-reference")
    tag = packaging.build_bento(build_dir, model_uri, f"{name}:{version}", schema, name, extra_labels={"registry": label},
                                reference=reference)
    return RegisteredBento(name, version, tag, built=True)
