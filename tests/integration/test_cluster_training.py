"""A table trained on a 2-worker Dask LocalCluster: LightGBM's Dask estimator scores as the single-process LightGBM
does on the same split, and the model it brings back is an ordinary pipeline that predicts pandas rows."""

from __future__ import annotations

import json

import joblib
import numpy as np
import pandas as pd
import pytest
from lightgbm import LGBMClassifier, LGBMRegressor
from sklearn.metrics import mean_squared_error, roc_auc_score

from automl_agent.platform.cluster_training import ClusterTrainingJob, cluster_for, train_on_cluster
from tests.conftest import DATASETS

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster_address():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      host="127.0.0.1", silence_logs=40) as cluster:
        yield cluster.scheduler_address


def _parquet(tmp_path, name: str, rows: int | None = None):
    frame = pd.read_csv(DATASETS / f"{name}.csv")
    frame = frame.sample(rows, random_state=0) if rows else frame
    path = tmp_path / f"{name}.parquet"
    frame.to_parquet(path, index=True, row_group_size=max(1, len(frame) // 4))  # four partitions
    return path, frame


def _single_process_copy(model_path, split_path, frame: pd.DataFrame, target: str, estimator, rounds: int, params):
    """The same encoder, parameters and rounds fitted in this process on the same training rows."""
    pipeline = joblib.load(model_path)
    split = json.loads(split_path.read_text())
    train, test = frame.loc[split["train_index"]], frame.loc[split["test_index"]]
    encoder = pipeline.named_steps["preprocess"]
    local = estimator(n_estimators=rounds, random_state=0, verbose=-1, **params)
    local.fit(encoder.transform(train[split["features"]]), train[target])
    return pipeline, local, encoder, train, test, split["features"]


def test_regression_on_the_cluster_scores_as_one_process_does(cluster_address, tmp_path):
    path, frame = _parquet(tmp_path, "diamonds", rows=12000)
    job = ClusterTrainingJob(address=cluster_address, data_path=str(path), task="tabular_regression", target="price",
                             numeric=["carat", "depth", "table", "x", "y", "z"], categorical=["cut", "color", "clarity"],
                             metric="rmse", direction="minimize", budget_s=8)
    report = train_on_cluster(job, tmp_path / "out", on_line=lambda line: None)
    assert report.n_workers == 2 and report.partitions >= 2 and report.rounds >= 10
    assert 1 <= report.best_round <= report.rounds
    assert report.n_train + report.n_test == len(frame)

    pipeline, local, encoder, train, test, features = _single_process_copy(
        tmp_path / "out/model/model.joblib", tmp_path / "out/split.json", frame, "price", LGBMRegressor,
        report.best_round, job.params)
    cluster_rmse = mean_squared_error(test["price"], pipeline.predict(test[features])) ** 0.5
    local_rmse = mean_squared_error(test["price"], local.predict(encoder.transform(test[features]))) ** 0.5
    assert cluster_rmse == pytest.approx(report.metrics["rmse"], rel=1e-6)  # the saved model is the one scored
    assert cluster_rmse <= 1.05 * local_rmse, (cluster_rmse, local_rmse)
    assert cluster_rmse < 0.25 * test["price"].std()  # and it learnt: a constant answer scores the std

    results = json.loads((tmp_path / "out/results.json").read_text())
    assert results["trained_on"] == "dask" and results["primary_metric"] == report.metrics["rmse"]
    schema = json.loads((tmp_path / "out/model/schema.json").read_text())
    assert [c["name"] for c in schema["columns"]] == features


def test_classification_on_the_cluster_scores_as_one_process_does(cluster_address, tmp_path):
    path, frame = _parquet(tmp_path, "credit")
    numeric = ["Seniority", "Time", "Age", "Expenses", "Income", "Assets", "Debt", "Amount", "Price"]
    job = ClusterTrainingJob(address=cluster_address, data_path=str(path), task="tabular_classification",
                             target="Status", numeric=numeric, categorical=["Home", "Marital", "Records", "Job"],
                             metric="roc_auc", budget_s=8)
    report = train_on_cluster(job, tmp_path / "out", on_line=lambda line: None)

    pipeline, local, encoder, train, test, features = _single_process_copy(
        tmp_path / "out/model/model.joblib", tmp_path / "out/split.json", frame, "Status", LGBMClassifier,
        report.best_round, job.params)
    positive = sorted(frame["Status"].unique())[-1]
    truth = (test["Status"] == positive).to_numpy()
    cluster_auc = roc_auc_score(truth, pipeline.predict_proba(test[features])[:, list(pipeline.classes_).index(positive)])
    local_auc = roc_auc_score(truth, local.predict_proba(encoder.transform(test[features]))[
        :, list(local.classes_).index(positive)])
    assert cluster_auc == pytest.approx(report.metrics["roc_auc"], abs=1e-9)
    assert cluster_auc >= local_auc - 0.02, (cluster_auc, local_auc)
    assert cluster_auc > 0.75
    assert set(np.unique(pipeline.predict(test[features].head(20)))) <= set(frame["Status"].unique())


def test_which_runs_train_on_a_cluster(tmp_path):
    path, _ = _parquet(tmp_path, "concrete")
    rows = len(pd.read_parquet(path))
    task = "tabular_regression"
    assert cluster_for(task, str(path), None, 0) is None  # no Dask runner: the sandbox
    assert cluster_for(task, str(path), "threads", 0) is None
    assert cluster_for(task, str(path), "dask", rows + 1) is None  # below the threshold
    assert cluster_for(task, str(path), "dask", rows).address is None  # a local cluster
    assert cluster_for(task, str(path), "dask:tcp://10.0.0.5:8786", 0).address == "tcp://10.0.0.5:8786"
    assert cluster_for("tabular_clustering", str(path), "dask", 0) is None
    assert cluster_for(task, str(DATASETS / "concrete.csv"), "dask", 0) is None  # not the run's Parquet snapshot
