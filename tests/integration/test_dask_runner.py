"""No stage depends on state held in one process: the mapped plans run on a Dask LocalCluster's worker processes; with
AUTOML_AGENT_CLUSTER_TRAINING_ROWS at 0 the table trains on a Dask cluster too, and the model it brings back is
registered like any other."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

pytestmark = pytest.mark.integration


def test_plans_mapped_on_dask_worker_processes(run_cli, small_churn, monkeypatch):
    monkeypatch.setenv("AUTOML_AGENT_TASK_RUNNER", "dask")
    monkeypatch.setenv("AUTOML_AGENT_CLUSTER_TRAINING_ROWS", "0")
    code, record, err = run_cli("run", "Predict churn; F1 at least 0.4", "--data", str(small_churn), "--budget", "10",
                                "--plans", "2", "--model-name", "dask-churn")
    assert code == 0, err
    assert record.status == "succeeded" and record.llm.calls >= 8  # the plans' agent calls made in the workers count
    client = MlflowClient(record.mlflow_tracking_uri)
    experiment = client.get_run(record.mlflow_run_id).info.experiment_id
    plans = client.search_runs([experiment], f"tags.mlflow.parentRunId = '{record.mlflow_run_id}'")
    workers = {p.data.tags["automl_agent.worker"] for p in plans}
    assert len(plans) == 2 and all(not w.endswith(f":{os.getpid()}") for w in workers)

    # the training went to a Dask cluster, not the sandbox, and its model is the registered one
    assert record.best_model == "lightgbm_dask" and record.metrics["f1"] > 0.4, (record.best_model, record.metrics)
    log = next(Path(record.data_snapshot).parents[1].glob("attempt_v*/train_v*.log")).read_text()
    assert "training on a local Dask cluster" in log and "rounds on 2 workers" in log
    assert "IMPLEMENT: training on a local Dask cluster" in err and "training in the sandbox" not in err
    versions = client.search_model_versions("name='dask-churn'")
    assert [v.run_id for v in versions] == [record.mlflow_run_id]
