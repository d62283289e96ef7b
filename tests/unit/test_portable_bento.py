"""What a bento carries to build anywhere: pinned requirements (the installed closure) and the project's source."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import packages_distributions, version

import pytest
from packaging.utils import canonicalize_name

from automl_agent.serving import portable


def _names(pins: list[str]) -> set[str]:
    return {canonicalize_name(p.split("==", 1)[0]) for p in pins}


def test_the_closure_pins_every_requirement_to_its_installed_version():
    pins = portable.pinned_closure(["bentoml"])
    assert f"bentoml=={version('bentoml')}" in pins
    assert all(p.count("==") == 1 for p in pins)
    names = [canonicalize_name(p.split("==")[0]) for p in pins]
    assert len(names) == len(set(names))
    # bentoml's own requirements and theirs, not only the root
    assert {"starlette", "uvicorn", "pydantic", "pydantic-core", "anyio"} <= set(names)
    for pin in pins:
        name, pinned = pin.split("==")
        assert version(name) == pinned


def test_the_project_itself_is_left_out_but_what_it_needs_is_in():
    pins = portable.pinned_closure(["automl-agent"])
    assert "automl-agent" not in _names(pins)
    assert {"prefect", "mlflow", "bentoml", "gradio"} <= _names(pins)


def test_a_library_that_is_not_installed_is_a_clear_error():
    with pytest.raises(portable.MissingLibraryError, match="pip install surely-not-a-real-package"):
        portable.pinned_closure(["surely-not-a-real-package"])


def test_a_local_torch_build_comes_with_its_index():
    assert portable.extra_index_urls(["numpy==2.0", "torch==2.13.0+cpu"]) == ["https://download.pytorch.org/whl/cpu"]
    assert portable.extra_index_urls(["torch==2.13.0+cu128"]) == ["https://download.pytorch.org/whl/cu128"]
    assert portable.extra_index_urls(["torch==2.13.0"]) == []


def test_each_task_adds_what_its_model_imports_when_it_predicts():
    tabular = portable.served_libraries("tabular_classification")
    assert "torch" not in tabular and "bentoml" in tabular and "lightgbm" in tabular
    for task, library in [("image_classification", "torch"), ("node_classification", "torch-geometric"),
                          ("text_classification", "sentence-transformers")]:
        if portable._installed(library):
            assert library in portable.served_libraries(task)
    assert portable.served_libraries("tabular_regression", ["catboost"])[-1:] == (
        ["catboost"] if portable._installed("catboost") else [])


def test_the_source_copy_has_every_module_and_nothing_else(tmp_path):
    patterns = portable.copy_package_source(tmp_path)
    copied = tmp_path / "automl_agent"
    assert patterns == ["automl_agent/**/*.py"]
    assert (copied / "__init__.py").is_file() and (copied / "serving" / "payload.py").is_file()
    assert (copied / "runtime.py").is_file() and (copied / "monitoring" / "served_log.py").is_file()
    suffixes = {p.suffix for p in copied.rglob("*") if p.is_file()}
    assert suffixes == {".py"}
    assert not any("__pycache__" in p.parts for p in copied.rglob("*"))
    portable.copy_package_source(tmp_path)  # a second build replaces the copy
    assert sum(1 for _ in copied.rglob("*.py")) == sum(
        1 for p in portable.PACKAGE_ROOT.rglob("*.py") if "__pycache__" not in p.parts)


SERVED_MODULES = """
import json, sys
import bentoml.mlflow
from automl_agent.config import current_settings
from automl_agent.serving import batching, middleware, payload
from automl_agent import graph_model, runtime, estimators, clustering
from automl_agent.monitoring import reference, served_log, service_metrics
print(json.dumps(sorted(m for m in sys.modules if m.startswith("automl_agent"))))
"""


def _top_level_imports(module: str) -> set[str]:
    """The libraries a module imports when it is loaded (imports inside functions are per task, see TASK_LIBRARIES)."""
    import ast
    import importlib.util

    path = importlib.util.find_spec(module).origin
    tree = ast.parse(open(path).read())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - {"automl_agent"}


def test_every_library_the_service_and_its_model_import_is_pinned():
    """The bento's requirements cover what the project's modules in a served process import when loaded (and
    bentoml's MLflow loader); what a library imports only when present is that library's business, and the
    served-bento test in a clean venv proves the whole for a table."""
    modules = json.loads(subprocess.run([sys.executable, "-c", SERVED_MODULES], capture_output=True, text=True,
                                        check=True).stdout)
    assert "automl_agent.serving.payload" in modules and "automl_agent.trainkit.runtime" in modules
    needed = {"bentoml", "mlflow", "skops"}.union(*(_top_level_imports(m) for m in modules))
    owners = packages_distributions()
    pinned = _names(portable.pinned_closure(portable.served_libraries("tabular_classification")))
    missing = {m: owners[m] for m in needed
               if m in owners and not {canonicalize_name(d) for d in owners[m]} & pinned}
    assert not missing, f"imported by the served model but not pinned in its bento: {missing}"
