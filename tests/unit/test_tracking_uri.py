"""Which MLflow store a run uses: the user's MLFLOW_TRACKING_URI, else its own workspace's sqlite file, never the
store of a run that came before it in the same process."""

from __future__ import annotations

import mlflow
import pytest

from automl_agent.settings import RunOptions, point_mlflow_at
from automl_agent.platform.tracking import Tracker


@pytest.fixture(autouse=True)
def _restore_mlflow_global(monkeypatch):
    before = mlflow.get_tracking_uri()
    yield
    point_mlflow_at(before)


def test_a_second_workspace_in_one_process_gets_its_own_store(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    first = RunOptions(instruction="predict churn", data_path="x.csv", workdir=str(tmp_path / "a"))
    Tracker(first.resolved_tracking_uri, "automl-agent", tmp_path / "a" / "mlartifacts")
    assert mlflow.get_tracking_uri() == first.resolved_tracking_uri  # MLflow's fluent API logs to this run's store

    second = RunOptions(instruction="predict churn", data_path="x.csv", workdir=str(tmp_path / "b"))
    assert second.resolved_tracking_uri == f"sqlite:///{tmp_path / 'b' / 'mlflow.db'}"


def test_the_users_tracking_uri_is_left_as_the_user_set_it(tmp_path, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://mlflow.team.internal:5000")
    point_mlflow_at(f"sqlite:///{tmp_path / 'mlflow.db'}")
    options = RunOptions(instruction="predict churn", data_path="x.csv", workdir=str(tmp_path))
    assert options.resolved_tracking_uri == "http://mlflow.team.internal:5000"
