from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")
    from automl_agent.settings import configure_environment

    configure_environment(root)
    return root


@pytest.fixture(scope="session")
def prefect_harness(workdir):
    """One Prefect test server for the whole session (it costs ~15 s to start)."""
    from prefect.testing.utilities import prefect_test_harness

    os.environ["AUTOML_AGENT_PREFECT"] = "ephemeral"  # the CLI keeps the harness's settings, starts no server
    with prefect_test_harness(server_startup_timeout=120):
        yield
    os.environ.pop("AUTOML_AGENT_PREFECT", None)


@pytest.fixture
def run_cli(workdir, prefect_harness, capsys):
    from automl_agent.cli.app import main
    from automl_agent.workspace import Workspace

    def run(*args: str):
        before = {r.run_id for r in Workspace(workdir).list()}
        code = main(["--workdir", str(workdir), *args])
        captured = capsys.readouterr()
        new = [r for r in Workspace(workdir).list() if r.run_id not in before]
        return code, (new[-1] if new else None), captured.err
    return run
