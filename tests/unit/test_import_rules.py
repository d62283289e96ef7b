"""The package's imports point one way (issue 31): no two modules import each other (even inside a function), no
module takes another's private names, and the lower layers (reading data, retrieval, the agents, the sandbox and
what training scripts import) never reach up into the flows, the CLI, serving or the benchmark."""

from __future__ import annotations

import ast

from tests.import_graph import circles, import_graph, package_modules

CLI = ("automl_agent.cli",)
UPPER = ("automl_agent.flows", "automl_agent.tasks", "automl_agent.deployments", "automl_agent.monitoring",
         "automl_agent.benchmark", "automl_agent.platform.stack", *CLI)
LOWER = ("automl_agent.data", "automl_agent.retrieval", "automl_agent.agents", "automl_agent.sandbox",
         "automl_agent.skeletons", "automl_agent.trainkit", "automl_agent.errors", "automl_agent.config",
         "automl_agent.knowledge")


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_circle_finder_finds_a_circle_and_nothing_else():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_two_modules_of_the_package_import_each_other():
    graph = import_graph()
    assert "automl_agent.agents.understanding.clauses" in graph["automl_agent.agents.understanding.target"]
    found = circles(graph)
    assert not found, f"import circles (move the shared piece into a module below both): {found}"


def test_no_module_imports_another_modules_private_names():
    taken = []
    for name, path in package_modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("automl_agent")):
                taken += [f"{name} takes {alias.name} from {node.module or '.'}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert not taken, "private names used across modules (make them public where they are defined): " + "; ".join(taken)


def test_lower_layers_never_import_the_flows_cli_serving_or_benchmark():
    upward = [f"{name} -> {imported}" for name, imports in import_graph().items() if _within(name, LOWER)
              for imported in sorted(imports) if _within(imported, UPPER)]
    assert not upward, f"arrows that run back up: {upward}"


def test_only_the_cli_imports_the_cli_and_the_flows():
    graph = import_graph()
    reaching = [f"{name} -> {imported}" for name, imports in graph.items() if not _within(name, CLI)
                for imported in sorted(imports)
                if _within(imported, CLI) or (_within(imported, ("automl_agent.flows",))
                                               and not _within(name, ("automl_agent.flows",)))]
    assert not reaching, f"modules below the CLI that import it or the flows: {reaching}"


def test_the_platform_serves_what_is_above_it_and_imports_none_of_it():
    """The servers, processes, Prefect's API and MLflow tracking know nothing of serving, the tasks, the flows or the
    deployment definitions (the stack brings work pools up through the platform's own Prefect client)."""
    above = ("automl_agent.serving", "automl_agent.tasks", "automl_agent.flows", "automl_agent.deployments",
             "automl_agent.monitoring", "automl_agent.benchmark", *CLI)
    upward = [f"{name} -> {imported}" for name, imports in import_graph().items()
              if _within(name, ("automl_agent.platform",))
              for imported in sorted(imports) if _within(imported, above)]
    assert not upward, f"the platform reaches up: {upward}"


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The imports between the package's folders (and root modules): `agents.understanding.target` counts as
    `agents`. A circle here is two parts of the house that each need the other, even without a circle of files."""
    def room(name: str) -> str:
        return ".".join(name.split(".")[:2])
    rooms: dict[str, set[str]] = {}
    for name, imports in graph.items():
        rooms.setdefault(room(name), set()).update(room(i) for i in imports if room(i) != room(name))
    return rooms


def test_the_folder_graph_sees_a_circle_the_file_graph_does_not():
    files = {"automl_agent.a.x": {"automl_agent.b.y"}, "automl_agent.b.y": set(), "automl_agent.b.z": {"automl_agent.a.w"},
             "automl_agent.a.w": set()}
    assert circles(files) == []
    assert circles(folder_graph(files)) == [["automl_agent.a", "automl_agent.b"]]


def test_no_two_folders_of_the_package_import_each_other():
    found = circles(folder_graph(import_graph()))
    assert not found, f"folders that import each other (move the shared piece into the lower one): {found}"
