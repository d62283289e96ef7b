"""Every library the package imports is a declared dependency: the core install for what modules import when they
load, an extra (or the core) for what a feature imports when it runs. A library that arrives only through another
package's dependencies breaks the day that package drops it."""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "automl_agent"
# imported at load time, yet optional: each sits in a module only its feature loads (it says how to install it)
LOADED_BY_THEIR_FEATURE = {"torch": "the image, text and graph tasks (torch is installed apart: see the Makefile)"}
NOT_PACKAGES = {"automl_agent", "_bentoml_impl", "autogluon"}  # autogluon: its own venv (make autogluon)
PART_OF = {"pydantic_core": "pydantic"}  # pydantic pins its own core exactly


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _declared() -> tuple[set[str], set[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_name(r) for r in project["dependencies"]}
    extras = {_name(r) for group in project["optional-dependencies"].values() for r in group}
    return core, extras


def _imports() -> dict[str, set[tuple[str, bool]]]:
    """top-level module name -> {(file, imported when the module loads)}"""
    found: dict[str, set[tuple[str, bool]]] = {}
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        at_load = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], set()).add((str(path.relative_to(ROOT)), id(node) in at_load))
    return found


def test_every_imported_library_is_declared_and_load_time_imports_are_core():
    core, extras = _declared()
    distributions = metadata.packages_distributions()
    undeclared, not_core = [], []
    for module, places in sorted(_imports().items()):
        if module in sys.stdlib_module_names or module in NOT_PACKAGES or module in LOADED_BY_THEIR_FEATURE:
            continue
        names = {d.lower().replace("_", "-") for d in distributions.get(module, [module])} | {PART_OF.get(module, "")}
        if names & core:
            continue
        if not names & extras:
            undeclared.append(f"{module} ({sorted(places)[0][0]})")
        elif any(at_load for _, at_load in places):
            not_core.append(f"{module} ({sorted(p for p, at_load in places if at_load)[0]})")
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"
    assert not not_core, f"imported when a module loads, but only in an extra: {not_core}"
