"""The report: evidence measured in the flow on the held-out rows, the pictures that fit each task, and two
documents (markdown beside its PNGs, self-contained HTML)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import KMeans
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from automl_agent.reporting import plots, write_report
from automl_agent.reporting.evidence import HeldOutEvidence, collect

RNG = np.random.default_rng(3)


def _table(n: int = 400) -> pd.DataFrame:
    tenure = RNG.integers(0, 72, n)
    plan = RNG.choice(["basic", "plus", "pro"], n)
    noise = RNG.normal(0, 1, n)
    return pd.DataFrame({"tenure": tenure, "plan": plan, "noise": noise,
                         "left": np.where(tenure + RNG.normal(0, 10, n) < 20, "yes", "no"),
                         "spend": 3 * tenure + (plan == "pro") * 40 + RNG.normal(0, 5, n)})


def _fit(tmp_path, frame: pd.DataFrame, target: str | None, estimator):
    """What a training script leaves behind: the data file, split.json, and a fitted pipeline."""
    features = ["tenure", "plan", "noise"]
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    train, test = train_test_split(frame.index, test_size=0.25, random_state=0)
    (tmp_path / "split.json").write_text(json.dumps({"features": features, "target": target,
                                                     "train_index": list(map(int, train)), "test_index": list(map(int, test))}))
    encode = ColumnTransformer([("n", StandardScaler(), ["tenure", "noise"]), ("c", OneHotEncoder(), ["plan"])])
    model = Pipeline([("encode", encode), ("model", estimator)])
    model.fit(frame.loc[train, features], None if target is None else frame.loc[train, target])
    return model, data, test


def test_classification_evidence_is_measured_on_the_held_out_rows(tmp_path):
    frame = _table()
    model, data, test = _fit(tmp_path, frame, "left", LogisticRegression())
    evidence = collect(model, "tabular_classification", str(data), tmp_path, {"target": "left"})
    assert not evidence.unavailable and evidence.n_rows == len(test)
    assert evidence.y_true == frame.loc[test, "left"].tolist()
    assert evidence.classes == ["no", "yes"] and np.allclose(np.sum(evidence.proba, axis=1), 1, atol=1e-4)
    # tenure drives the label: shuffling it must cost far more than shuffling noise
    assert evidence.feature_importance["tenure"] > evidence.feature_importance["noise"] + 0.05
    assert len(evidence.examples) == 5 and set(evidence.examples[0]) == {"tenure", "plan", "noise"}
    assert len(evidence.example_truth) == 5 and set(evidence.example_truth) == {"no", "yes"}  # both classes shown


def test_regression_evidence_gives_the_typical_error(tmp_path):
    frame = _table()
    model, data, test = _fit(tmp_path, frame, "spend", Ridge())
    evidence = collect(model, "tabular_regression", str(data), tmp_path, {"target": "spend"})
    expected = np.mean(np.abs(frame.loc[test, "spend"] - model.predict(frame.loc[test, ["tenure", "plan", "noise"]])))
    assert evidence.typical_error == pytest.approx(expected)


def test_clustering_evidence_projects_the_encoded_rows(tmp_path):
    frame = _table()
    model, data, test = _fit(tmp_path, frame, None, KMeans(n_clusters=3, n_init=3, random_state=0))
    evidence = collect(model, "tabular_clustering", str(data), tmp_path, {"target": None})
    assert len(evidence.projection) == len(test) and all(len(p) == 2 for p in evidence.projection)
    assert "PCA" in evidence.projection_note and len(evidence.reference) == len(test)


def test_a_broken_split_costs_the_pictures_not_the_run(tmp_path):
    frame = _table()
    model, data, _ = _fit(tmp_path, frame, "left", LogisticRegression())
    (tmp_path / "split.json").write_text('{"features": ["no_such_column"], "target": "left", "test_index": [1, 2]}')
    evidence = collect(model, "tabular_classification", str(data), tmp_path, {"target": "left"})
    assert evidence.unavailable.startswith("KeyError") and not evidence.y_true


def _record(task: str, **extra) -> dict:
    return {"run_id": "20261123-000000-abcdef", "status": "succeeded", "instruction": "predict who leaves",
            "data_path": "/data/table.csv", "task_type": task, "target": "left", "metrics": {"f1": 0.71},
            "constraints": [{"name": "f1", "op": ">=", "target": 0.6, "measured": 0.71, "satisfied": True},
                            {"name": "latency_ms", "op": "<", "target": 5, "measured": 7.5, "satisfied": False}],
            "plans": [{"plan_id": 1, "title": "Boosting", "rationale": "strong on tables", "model_families": ["lightgbm"]},
                      {"plan_id": 2, "title": "Linear", "rationale": "small", "model_families": ["logistic_regression"]}],
            "chosen_plan": "Boosting", "chosen_reason": "plan 1 meets every constraint", "timings": {"train": 3.2},
            **extra}


def _results() -> dict:
    """Trials as write_results leaves them, with Optuna's own distribution JSON."""
    from optuna.distributions import FloatDistribution, IntDistribution, distribution_to_json

    trials = []
    for i in range(12):
        lr, leaves = 0.01 + 0.02 * i, 8 + (i % 3)
        trials.append({"number": i, "model": "lightgbm", "value": 0.6 + lr, "params": {"model": 0, "lr": lr, "leaves": leaves},
                       "distributions": {"lr": distribution_to_json(FloatDistribution(0.01, 0.3)),
                                         "leaves": distribution_to_json(IntDistribution(4, 64))}})
    return {"trials": trials, "direction": "maximize", "metric": "f1", "best_model": "lightgbm", "n_trials": 12}


def test_optuna_names_the_parameter_that_moved_the_score():
    importance = plots.parameter_importance(_results())
    assert set(importance) == {"lr", "leaves"} and importance["lr"] > importance["leaves"]


@pytest.mark.parametrize("task,expected", [
    ("tabular_classification", ["report_confusion", "report_per_class", "report_roc_pr", "report_calibration"]),
    ("tabular_regression", ["report_residuals"]),
])
def test_the_report_has_the_pictures_of_its_task_in_both_documents(tmp_path, task, expected):
    n = 200
    truth = RNG.choice(["no", "yes"], n)
    if task == "tabular_classification":
        proba = np.clip(np.where(truth == "yes", 0.7, 0.3) + RNG.normal(0, 0.2, n), 0, 1)
        evidence = HeldOutEvidence(task=task, target="left", n_rows=n, y_true=truth.tolist(),
                                   y_pred=np.where(proba > 0.5, "yes", "no").tolist(), classes=["no", "yes"],
                                   proba=[[1 - p, p] for p in proba], feature_importance={"tenure": 0.2, "plan": 0.01},
                                   importance_scoring="accuracy")
    else:
        actual = RNG.normal(50, 10, n)
        evidence = HeldOutEvidence(task=task, target="spend", n_rows=n, y_true=actual.tolist(),
                                   y_pred=(actual + RNG.normal(0, 3, n)).tolist(), typical_error=2.4)
    files = write_report(tmp_path, _record(task), _results(), evidence)
    names = {re.sub(r"\.png$", "", p.split("/")[-1]) for p in files.pictures}
    assert set(expected) <= names and {"report_constraints", "report_search", "report_params"} <= names
    for name in names:
        assert f"]({name}.png)" in files.markdown
    html = (tmp_path / "report.html").read_text()
    assert html.count("<img") == len(names) and "src='data:image/png;base64," in html
    assert not re.search(r"""src=['"](?!data:)""", html), "the HTML must not point at files"
    assert "**NO**" in files.markdown  # the unmet latency constraint stands out
    assert "Why this plan: plan 1 meets every constraint" in files.markdown


def test_the_prefect_artifact_links_pictures_to_the_mlflow_server():
    from automl_agent.tasks.delivery import _artifact_markdown

    markdown = "## Held out\n\n![confusion](report_confusion.png)\n\n*caption*\n"
    linked = _artifact_markdown(markdown, "http://mlflow.team:5000/", "abc123")
    assert "(http://mlflow.team:5000/get-artifact?path=report/report_confusion.png&run_uuid=abc123)" in linked
    local = _artifact_markdown(markdown, "sqlite:////tmp/mlflow.db", "abc123")
    assert "report_confusion.png" not in local and "report.html" in local
