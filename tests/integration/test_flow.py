"""The real flow in-process: real Prefect (test server), real MLflow on sqlite, real sandboxed training."""

from __future__ import annotations

import json
from pathlib import Path

import mlflow
import pandas as pd
import pytest
from mlflow.tracking import MlflowClient

from automl_agent.serving.packaging import safe_name
from automl_agent.settings import point_mlflow_at

pytestmark = pytest.mark.integration


def test_regression_run_is_verified_registered_and_tracked(run_cli, small_diamonds, workdir):
    code, record, err = run_cli("run", "Predict the price of a diamond. RMSE below 2000.", "--data", str(small_diamonds),
                                "--budget", "8", "--model-name", "diamonds-test")
    assert code == 0, err
    assert record.status == "succeeded" and record.task_type == "tabular_regression" and record.target == "price"
    assert record.metrics["rmse"] < 2000 and record.metrics["r2"] > 0.8
    assert record.constraints[0].name == "rmse" and record.constraints[0].satisfied
    assert record.success_score == 1.0
    assert record.registered_model.alias == "champion" and record.bento_tag
    for stage in ("INIT", "PLAN", "EXECUTE", "IMPLEMENT", "DELIVER", "trial"):
        assert stage in err

    client = MlflowClient(record.mlflow_tracking_uri)
    version = client.get_model_version_by_alias("diamonds-test", "champion")
    assert str(version.version) == record.registered_model.version
    children = client.search_runs([client.get_run(record.mlflow_run_id).info.experiment_id],
                                  f"tags.mlflow.parentRunId = '{record.mlflow_run_id}'")
    assert len(children) == 3  # one nested run per plan
    artifacts = {a.path for a in client.list_artifacts(record.mlflow_run_id)}
    assert {"instruction.txt", "requirement_spec.json", "agents", "plans", "verdicts", "scripts", "results", "report"} <= artifacts
    agent_files = [a.path for a in client.list_artifacts(record.mlflow_run_id, "agents")]
    assert any(p.endswith("prompt.parse_instruction.prompt.md") for p in agent_files)
    point_mlflow_at(record.mlflow_tracking_uri)
    model = mlflow.pyfunc.load_model("models:/diamonds-test@champion")
    rows = pd.read_csv(small_diamonds).drop(columns=["price"]).head(20)  # a registry consumer's own CSV, as read
    assert len(model.predict(rows)) == 20
    description = client.get_model_version("diamonds-test", record.registered_model.version).description
    assert "rmse" in description and "models:/diamonds-test@champion" in description


def test_a_limit_on_the_inputs_reaches_the_trained_model_and_the_served_schema(run_cli, small_diamonds, workdir):
    code, record, err = run_cli("run", "Predict the price of a diamond using only carat, cut and clarity; RMSE below 3000.",
                                "--data", str(small_diamonds), "--budget", "4", "--max-revisions", "0")
    assert code == 0, err
    assert "cross-check: inputs limited to carat, cut and clarity" in err
    run_dir = Path(record.report_path).parent
    served = json.loads((run_dir / "bento" / "schema.json").read_text())
    assert sorted(c["name"] for c in served["columns"]) == ["carat", "clarity", "cut"]
    # the second bento built in this process is named after its own model, not the first run's (diamonds-test)
    assert record.registered_model.name != "diamonds-test"
    assert record.bento_tag.split(":")[0] == safe_name(record.registered_model.name)
    point_mlflow_at(record.mlflow_tracking_uri)
    model = mlflow.pyfunc.load_model(f"models:/{record.registered_model.name}/{record.registered_model.version}")
    rows = pd.read_csv(small_diamonds)[["carat", "cut", "clarity"]].head(5)
    assert len(model.predict(rows)) == 5  # three columns are all a caller has to send


def test_an_unclear_limit_on_the_inputs_asks_before_anything_is_trained(run_cli, small_diamonds):
    code, record, err = run_cli("run", "Predict the price using only the sparkle and the size.", "--data",
                                str(small_diamonds), "--budget", "4")
    assert code == 2 and record.status == "rejected"
    assert "'sparkle' and 'size'" in err and "carat, cut, color" in err and "Traceback" not in err
    assert not record.metrics and record.bento_tag is None


def test_clustering_is_scored_with_the_rand_index(run_cli, wine_csv):
    code, record, err = run_cli("run", "Cluster the wines into 3 groups", "--data", str(wine_csv), "--target", "cultivar",
                                "--budget", "5")
    assert code == 0, err
    assert record.task_type == "tabular_clustering" and record.metric == "rand_index"
    assert record.metrics["rand_index"] > 0.8  # wine cultivars separate well once standardised


def test_unmeetable_constraint_fails_clearly_but_keeps_the_record(run_cli, small_diamonds):
    code, record, err = run_cli("run", "Predict the price of a diamond with RMSE below 1", "--data", str(small_diamonds),
                                "--budget", "4", "--max-revisions", "0")
    assert code == 1
    assert record.status == "failed" and "rmse" in record.message and "candidate" in record.message
    assert record.constraints[0].satisfied is False
    assert record.success_score == 0.5 and record.registered_model.alias == "candidate"
    assert "Traceback" not in err


@pytest.mark.parametrize("instruction, data, expected", [
    ("Write me a poem about the sea", "churn", "not read as a machine-learning request"),
    ("Predict customer churn", "missing", "Data file not found"),
    ("Predict customer churn", "empty", "empty"),
])
def test_bad_input_is_rejected_with_a_message_and_a_record(run_cli, churn_csv, tmp_path, instruction, data, expected):
    paths = {"churn": churn_csv, "missing": tmp_path / "nope.csv", "empty": tmp_path / "empty.csv"}
    paths["empty"].write_text("")
    code, record, err = run_cli("run", instruction, "--data", str(paths[data]))
    assert code == 2
    assert record.status == "rejected" and expected in record.message
    assert expected in err and "Traceback" not in err


def test_target_that_is_not_a_column_lists_the_columns(run_cli, churn_csv):
    code, record, err = run_cli("run", "Predict customer churn", "--data", str(churn_csv), "--target", "churned")
    assert code == 2 and record.status == "rejected"
    assert "'churned' is not a column" in record.message and "tenure" in record.message
