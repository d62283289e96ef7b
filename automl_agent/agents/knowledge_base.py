"""The bundled knowledge base: models, defaults, search spaces and plan templates per task type."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from .contracts import TaskType

KB_DIR = Path(__file__).resolve().parents[1] / "knowledge"


@lru_cache(maxsize=1)
def _load() -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for path in sorted(KB_DIR.glob("*.json")):
        merged.update(json.loads(path.read_text()))
    return merged


def task_entry(task: TaskType) -> dict[str, Any]:
    entry = _load().get(task.value)
    if entry is None:
        raise KeyError(f"no knowledge for task {task.value}")
    return entry


def models(task: TaskType) -> dict[str, dict[str, Any]]:
    """The task's models whose optional packages are installed (a pretrained encoder needs its extra)."""
    return {key: info for key, info in task_entry(task)["models"].items() if _installed(info.get("requires", []))}


@lru_cache(maxsize=None)
def _installed_one(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _installed(modules: list[str]) -> bool:
    return all(_installed_one(m) for m in modules)


def model_keys(task: TaskType) -> list[str]:
    return list(models(task))


def plan_templates(task: TaskType) -> list[dict[str, Any]]:
    return task_entry(task)["plans"]


def default_metric(task: TaskType) -> str:
    return task_entry(task)["default_metric"]


def known_tasks() -> list[str]:
    return list(_load())
