"""The flow names the paper's phases and docs/how-it-works.md draws what the code does (issue 31): the page's diagram
is the one flows/diagram.py draws from the code, each phase holds the Prefect tasks its functions call in the order
they call them, and the flow calls the phases in the paper's order and fits on one screen."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from automl_agent.flows import automl, diagram, phases

DOC = Path(__file__).resolve().parents[2] / "docs" / "how-it-works.md"
ORDER = ["init", "retrieve", "plan", "execute", "implement", "deliver"]


def test_the_page_draws_the_diagram_the_code_draws():
    text = DOC.read_text()
    drawn = text[text.index(diagram.BEGIN) + len(diagram.BEGIN):text.index(diagram.END)]
    assert drawn.strip() == f"```mermaid\n{diagram.mermaid()}\n```", \
        "docs/how-it-works.md is out of date: run `python -m automl_agent.flows.diagram docs/how-it-works.md`"


def test_each_phase_holds_the_tasks_its_functions_call_in_their_order():
    names = {phase: [t.name for t in tasks] for phase, tasks in diagram.phase_tasks().items()}
    assert list(names) == ["INIT", "PLAN", "EXECUTE", "IMPLEMENT", "DELIVER"]
    assert names["INIT"] == ["verify_request", "parse_instruction"]
    # implement calls write_and_train (the script written, then trained) before verifying it
    assert names["IMPLEMENT"] == ["write_pipeline", "run_pipeline", "verify_implementation"]
    assert names["DELIVER"] == ["register_model", "build_bento", "write_demo", "report"]
    every = [name for tasks in names.values() for name in tasks]
    assert len(every) == len(set(every))
    # what the diagram draws between two phases and as loops is in the code it stands for
    assert "check_feasible(" in inspect.getsource(phases.init)
    assert "attempt.passed" in inspect.getsource(automl._run_stages)
    assert all(source in every and target in every for source, _, target in diagram.LOOPS)


def test_the_flow_runs_the_phases_in_the_papers_order_on_one_screen():
    source = inspect.getsource(automl._run_stages)
    assert re.findall(r"phases\.(\w+)\(", source) == ORDER
    for name in ORDER:
        doc = getattr(phases, name).__doc__ or ""
        assert re.match(r"(INIT|PLAN|EXECUTE|IMPLEMENT|DELIVER)\b", doc), f"phases.{name} does not say its phase"
    assert len(inspect.getsource(automl).splitlines()) <= 70
    assert "except" not in inspect.getsource(automl)  # how a run ends, whatever happened, is lifecycle.recorded's


def test_a_diagram_drawn_from_a_changed_phase_changes(monkeypatch):
    """The test above can fail: a phase that calls another task draws another diagram."""
    before = diagram.mermaid()
    monkeypatch.setitem(diagram.METHOD, "EXECUTE", (phases.execute, phases.plan))
    assert diagram.mermaid() != before and "make_plans" in diagram.phase_tasks()["EXECUTE"][-1].name
