"""The trust boundary of generated code, checked on the source: a training script may import the modules its
skeleton names and what those import, and none of that reaches the platform (MLflow, Prefect, BentoML, Gradio, LLM
clients, the network) or the agents and flows that hold the run's state and secrets (issue 31)."""

from __future__ import annotations

from tests.import_graph import PACKAGE, imports_of, module_file

# what a training script may import: its skeleton, the export step, and the whole training kit
SKELETONS = (sorted((PACKAGE / "skeletons").glob("*.py")) + [PACKAGE / "sandbox" / "export_model.py"]
             + sorted((PACKAGE / "trainkit").glob("*.py")))
# what a sandboxed script must never reach, directly or through a module it imports
PLATFORM_LIBRARIES = {"mlflow", "prefect", "prefect_dask", "bentoml", "gradio", "openai", "httpx", "requests",
                      "urllib3", "kaggle", "arxiv", "huggingface_hub", "socket"}
PLATFORM_MODULES = ("automl_agent.agents", "automl_agent.flows", "automl_agent.tasks", "automl_agent.deployments",
                    "automl_agent.serving", "automl_agent.platform", "automl_agent.cli", "automl_agent.settings",
                    "automl_agent.config", "automl_agent.retrieval", "automl_agent.monitoring", "automl_agent.workspace",
                    "automl_agent.context")
# reviewed: the reader's record of how a table was read is one of the typed contracts (pydantic models, no I/O); the
# settings are read from the environment, which the sandbox reduces to its pass-through list (no keys, no URIs)
ALLOWED = {"automl_agent.agents.contracts", "automl_agent.config"}


def reached_from_the_sandbox() -> dict[str, str]:
    """Each module a training script can reach -> the module that imports it."""
    reached: dict[str, str] = {}
    todo = [(name, script.name) for script in SKELETONS
            for name in imports_of(script, ".".join(("automl_agent",) + script.relative_to(PACKAGE).with_suffix("").parts))]
    while todo:
        name, via = todo.pop()
        if name in reached:
            continue
        reached[name] = via
        if name.startswith("automl_agent"):
            # a package's __init__ runs on the way to any of its modules
            parents = [".".join(name.split(".")[:i]) for i in range(2, len(name.split(".")))]
            for module in [*parents, name]:
                path = module_file(module)
                if path is not None:
                    todo += [(n, module) for n in imports_of(path, module)]
    return reached


def test_no_training_script_can_reach_the_platform():
    reached = reached_from_the_sandbox()
    assert "automl_agent.trainkit.estimators" in reached and "automl_agent.trainkit.runtime" in reached  # the walk works
    libraries = {name: via for name, via in reached.items() if name.split(".")[0] in PLATFORM_LIBRARIES}
    modules = {name: via for name, via in reached.items() if name.startswith(PLATFORM_MODULES) and name not in ALLOWED}
    assert not libraries, f"a training script reaches platform libraries: {libraries}"
    assert not modules, f"a training script reaches the run's own modules: {modules}"


def test_the_walk_sees_an_import_inside_a_function(tmp_path):
    source = tmp_path / "script.py"
    source.write_text("import numpy\n\ndef f():\n    from automl_agent.platform.tracking import Tracker\n    import mlflow\n")
    assert {"numpy", "automl_agent.platform.tracking", "mlflow"} <= imports_of(source, "automl_agent.skeletons.x")
