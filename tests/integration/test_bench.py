"""`automl-agent bench --suite dev --quick`: one dataset per task type through the real flow, a baseline on the
same split, SR / NPS / CS as in the paper, results on disk and in MLflow."""

from __future__ import annotations

import json

import pytest
from mlflow.tracking import MlflowClient

pytestmark = pytest.mark.integration


def test_quick_dev_suite_scores_every_run_next_to_a_baseline(run_cli, workdir):
    code, _, err = run_cli("bench", "--suite", "dev", "--quick", "--setting", "aware", "--budget", "8", "--plans", "1")
    assert code == 0, err[-3000:]
    results = sorted((workdir / "bench").glob("*/results.json"))[-1]
    report = json.loads(results.read_text())
    rows = {(r["dataset"], r["setting"]): r for r in report["rows"]}
    done = report["rows"]
    assert all(r["status"] != "not implemented" for r in done)  # all seven task types are built
    assert {r["dataset"] for r in done} == {"telco-churn", "diamonds", "penguins", "sms-spam", "etth1", "mnist-5k", "cora"}
    assert all(r["status"] in {"succeeded", "failed"} and r["sr"] >= 0.5 for r in done)
    for r in done:
        assert r["cs"] == pytest.approx(0.5 * r["sr"] + 0.5 * r["nps"], abs=1e-6)
    for r in done:  # every implemented task type has its baseline on the same split
        assert r["baseline_value"] is not None, (r["dataset"], r["message"])
    assert rows[("diamonds", "aware")]["nps"] == pytest.approx(1 / (1 + rows[("diamonds", "aware")]["value"]), rel=1e-4)
    assert rows[("cora", "aware")]["value"] >= 0.7  # GCN and friends on the standard split (published: about 0.81)
    assert set(report["averages"]) == {"aware"} and report["averages"]["aware"]["runs"] == 7
    markdown = results.with_name("results.md").read_text()
    assert "| setting | runs |" in markdown and "FLAML AutoML" in markdown and "seasonal naive" in markdown
    assert "node features" in markdown

    client = MlflowClient(f"sqlite:///{workdir / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("automl-agent-bench")
    run = client.search_runs([experiment.experiment_id], order_by=["start_time DESC"], max_results=1)[0]
    assert run.data.metrics["aware_sr"] == report["averages"]["aware"]["sr"]
