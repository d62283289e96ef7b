"""The flow names the paper's phases and docs/how-it-works.md draws what the code does (issue 31): each phase of the
diagram holds exactly the Prefect tasks that phase's functions call, and the flow calls the phases in the paper's
order."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from prefect import Task

from automl_agent.flows import automl, lifecycle, phases
from automl_agent.tasks import delivery, execution, implementation, parsing, planning, request, retrieval

DOC = Path(__file__).resolve().parents[2] / "docs" / "how-it-works.md"
TASK_MODULES = {m.__name__.rsplit(".", 1)[1]: m for m in (delivery, execution, implementation, parsing, planning,
                                                           request, retrieval)}
PHASES = {"INIT": [phases.init], "PLAN": [phases.retrieve, phases.plan], "EXECUTE": [phases.execute],
          "IMPLEMENT": [phases.implement, phases.write_and_train], "DELIVER": [phases.deliver, lifecycle.finish]}


def _tasks_called(function) -> set[str]:
    names = set()
    for module, attr in re.findall(r"\b(\w+)\.(\w+)\b", inspect.getsource(function)):
        task = getattr(TASK_MODULES.get(module), attr, None)
        if isinstance(task, Task):
            names.add(task.name)
    return names


def _drawn() -> dict[str, set[str]]:
    """Each subgraph of the doc's diagram -> the boxes inside it (by their ids)."""
    text = DOC.read_text()
    drawn = {}
    for name, body in re.findall(r"subgraph (\w+)\n(.*?)\n\s*end\n", text, flags=re.S):
        drawn[name] = set(re.findall(r"(\w+)\[", body))
    return drawn


def test_each_phase_of_the_diagram_holds_the_tasks_its_code_calls():
    drawn = _drawn()
    assert list(drawn) == list(PHASES)
    for phase, functions in PHASES.items():
        called = set().union(*(_tasks_called(f) for f in functions))
        assert called, f"{phase}: its functions call no Prefect task"
        assert drawn[phase] == called, f"{phase}: the doc draws {sorted(drawn[phase])}, the code calls {sorted(called)}"


def test_the_flow_runs_the_phases_in_the_papers_order():
    source = inspect.getsource(automl._run_stages)
    order = [m for m in re.findall(r"phases\.(\w+)\(", source)]
    assert order == ["init", "retrieve", "plan", "execute", "implement", "deliver"]
    for name in ("init", "retrieve", "plan", "execute", "implement", "deliver"):
        doc = getattr(phases, name).__doc__ or ""
        assert re.match(r"(INIT|PLAN|EXECUTE|IMPLEMENT|DELIVER)\b", doc), f"phases.{name} does not say its phase"
