"""No stage depends on state held in one process: the mapped plans run on a Dask LocalCluster's worker processes."""

from __future__ import annotations

import os

import pytest
from mlflow.tracking import MlflowClient

pytestmark = pytest.mark.integration


def test_plans_mapped_on_dask_worker_processes(run_cli, small_churn, monkeypatch):
    monkeypatch.setenv("AUTOML_AGENT_TASK_RUNNER", "dask")
    code, record, err = run_cli("run", "Predict churn; F1 at least 0.4", "--data", str(small_churn), "--budget", "5",
                                "--plans", "2", "--model-name", "dask-churn")
    assert code == 0, err
    assert record.status == "succeeded" and record.llm.calls >= 8  # the plans' agent calls made in the workers count
    client = MlflowClient(record.mlflow_tracking_uri)
    experiment = client.get_run(record.mlflow_run_id).info.experiment_id
    plans = client.search_runs([experiment], f"tags.mlflow.parentRunId = '{record.mlflow_run_id}'")
    workers = {p.data.tags["automl_agent.worker"] for p in plans}
    assert len(plans) == 2 and all(not w.endswith(f":{os.getpid()}") for w in workers)
