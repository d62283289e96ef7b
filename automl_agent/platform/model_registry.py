"""Names in the MLflow model registry: a models:/ URI read, the version an alias points at now, and a registered
name made safe for bento tags and folder names."""

from __future__ import annotations

import re

from ..errors import UserFacingError

_URI = re.compile(r"^models:/(?P<name>[^/@]+)(?:@(?P<alias>[^/]+)|/(?P<version>\d+))$")


def safe_name(text: str) -> str:
    name = re.sub(r"[^a-z0-9_.-]+", "-", text.lower()).strip("-.")
    return (name or "model")[:60]


def parse_model_uri(uri: str) -> tuple[str, str | None, str | None]:
    """(name, alias, version) of models:/NAME@ALIAS or models:/NAME/VERSION."""
    match = _URI.match(uri.strip())
    if not match:
        raise UserFacingError(f"{uri!r} is not a registered model URI.",
                              "Write models:/NAME@ALIAS (e.g. models:/churn-tabular_classification@champion) or "
                              "models:/NAME/VERSION.")
    return match["name"], match["alias"], match["version"]


def resolve_version(uri: str, tracking_uri: str) -> tuple[str, str]:
    """The (name, version) the URI points at now in the registry."""
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    name, alias, version = parse_model_uri(uri)
    client = MlflowClient(tracking_uri)
    try:
        if alias:
            return name, str(client.get_model_version_by_alias(name, alias).version)
        return name, str(client.get_model_version(name, version).version)
    except MlflowException as exc:
        known = ", ".join(m.name for m in client.search_registered_models(max_results=20)) or "none"
        raise UserFacingError(f"{uri} is not in the registry at {tracking_uri}: {exc.message}",
                              f"Registered models there: {known}. Check the name and alias, and MLFLOW_TRACKING_URI "
                              "(or --tracking-uri).") from None
