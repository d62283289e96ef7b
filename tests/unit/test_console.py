"""Progress people can live with: plain output prints one line per stage and one per new best trial (not one per
trial); a terminal gets a live panel; --quiet prints the outcome only."""

from __future__ import annotations

import io

import pytest

from automl_agent.console import Reporter


@pytest.fixture
def no_ci_env(monkeypatch):
    """CI machines set CI, which forces plain output; the terminal tests are about a person's terminal."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("AUTOML_AGENT_PLAIN_PROGRESS", raising=False)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _trials(reporter: Reporter) -> None:
    best = 0.0
    for i, value in enumerate([0.61, 0.60, 0.64, 0.63, 0.62, 0.66, 0.65, 0.60], start=1):
        best = max(best, value)
        reporter.trial({"trial": i, "model": "lightgbm" if i % 2 else "logistic_regression", "value": value,
                        "best": best, "elapsed_s": i * 2}, budget_s=30)


def test_plain_output_shows_new_bests_only_and_a_closing_count():
    stream = io.StringIO()
    reporter = Reporter(stream=stream, live=False)
    with reporter.stage("train", "IMPLEMENT: training"):
        _trials(reporter)
    lines = stream.getvalue().splitlines()
    trial_lines = [line for line in lines if "trial " in line and "best" in line]
    assert len(trial_lines) == 3  # 0.61, 0.64, 0.66: the bests, not all eight
    assert "    8 trials, best 0.6600 (logistic_regression)" in lines  # trial 6 set the best
    assert lines[0] == "> IMPLEMENT: training ..." and lines[-1].startswith("  IMPLEMENT: training: ")
    assert "train" in reporter.timings


def test_a_terminal_gets_a_live_panel_and_finished_stages_as_lines(no_ci_env):
    stream = Terminal()
    reporter = Reporter(stream=stream)
    assert reporter.live
    with reporter.stage("train", "IMPLEMENT: training"):
        _trials(reporter)
        reporter.detail("logistic_regression: test f1 = 0.64")
    shown = stream.getvalue()
    assert "✓ IMPLEMENT: training" in shown and "logistic_regression: test f1 = 0.64" in shown
    assert "trial   2" not in shown  # the trials were in the panel, which goes away with its stage


def test_quiet_prints_only_what_always_prints():
    stream = io.StringIO()
    reporter = Reporter(stream=stream, quiet=True)
    with reporter.stage("train", "IMPLEMENT: training"):
        _trials(reporter)
    reporter.table("", [("serve", "automl-agent serve X")])
    reporter.always("run X: SUCCEEDED")
    assert stream.getvalue() == "run X: SUCCEEDED\n"


def test_the_summary_table_keeps_long_values_whole_in_plain_output():
    stream = io.StringIO()
    url = "http://127.0.0.1:4200/runs/flow-run/" + "0123456789abcdef" * 4
    Reporter(stream=stream, live=False).table("", [("Prefect UI", url), ("serve", "automl-agent serve X")])
    assert url in stream.getvalue() and "  serve       automl-agent serve X" in stream.getvalue()


@pytest.mark.parametrize("variable", ["CI", "AUTOML_AGENT_PLAIN_PROGRESS"])
def test_ci_or_the_plain_switch_turn_a_terminal_plain(no_ci_env, monkeypatch, variable):
    monkeypatch.setenv(variable, "1")
    assert not Reporter(stream=Terminal()).live


def test_the_live_panel_shows_which_parallel_parts_are_still_running(no_ci_env):
    from rich.console import Console

    reporter = Reporter(stream=Terminal())
    with reporter.stage("execute", "EXECUTE: 3 plans in parallel"):
        reporter.parts(["plan 1", "plan 2", "plan 3"])
        reporter.part_done("plan 2")
        console = Console(file=io.StringIO(), width=100)
        console.print(reporter._panel())
        panel = console.file.getvalue()
    assert "… plan 1" in panel and "✓ plan 2" in panel and "… plan 3" in panel
