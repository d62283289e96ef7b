"""The rendered tabular training script's quality features, run for real in the sandbox on small tables: a clustering
of size-dominated measurements is found in shape space, a skewed regression target tries both scales, a blend is
recorded with its verdict, and large tables are searched with successive halving."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.operation_agent import render
from automl_agent.sandbox import run_script

pytestmark = pytest.mark.integration

BASE = {"test_size": 0.2, "cv_folds": 3, "holdout_above_rows": 20000, "max_trials": 40, "n_jobs": 1, "seed": 0,
        "text": [], "limits": {}}


def _run(tmp_path, config: dict, frame: pd.DataFrame) -> dict:
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    script = tmp_path / "train.py"
    script.write_text(render({**BASE, **config, "data_path": str(data)}))
    result = run_script(script, tmp_path, timeout_s=180, read_only=[data])
    assert result.returncode == 0, (tmp_path / "train.log").read_text()[-3000:]
    return json.loads((tmp_path / "results.json").read_text())


def test_crab_like_measurements_are_clustered_by_shape_not_size(tmp_path):
    rng = np.random.default_rng(1)
    shapes = np.array([[1.0, 0.8, 2.0, 2.4, 0.9], [1.0, 0.95, 2.0, 2.3, 0.8],
                       [1.1, 0.8, 1.9, 2.2, 0.95], [1.1, 0.95, 1.9, 2.1, 0.85]])
    blocks = [rng.lognormal(2.5, 0.3, (60, 1)) * s * rng.lognormal(0, 0.02, (60, 5)) for s in shapes]
    frame = pd.DataFrame(np.vstack(blocks), columns=[f"m{i}" for i in range(5)])
    frame["group"] = np.repeat(["a", "b", "c", "d"], 60)
    kmeans = {"model": "kmeans", "hyperparameters": {"n_clusters": 3},
              "search_space": {"n_clusters": {"type": "int", "low": 2, "high": 8}}}
    results = _run(tmp_path, {"task": "tabular_clustering", "target": "group", "numeric": [f"m{i}" for i in range(5)],
                              "categorical": [], "metric": "rand_index", "direction": "maximize", "n_clusters": 4,
                              "candidates": [kmeans], "hpo_budget_s": 5}, frame)
    assert results["representation"]["kind"] == "log_drop1"
    assert results["metrics"]["rand_index"] > 0.9


def test_a_skewed_price_tries_both_scales_and_records_its_blend_verdict(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(1500, 4))
    price = np.exp(10 + X[:, 0] + 0.5 * np.sin(3 * X[:, 1]) + 0.3 * X[:, 2] * X[:, 3] + rng.normal(0, 0.2, 1500))
    frame = pd.DataFrame(X, columns=list("abcd")).assign(price=price)
    space = {"n_estimators": {"type": "int", "low": 50, "high": 200}, "log_target": {"type": "categorical", "choices": [False, True]}}
    candidates = [{"model": "lightgbm", "hyperparameters": {"n_estimators": 100, "log_target": False}, "search_space": space},
                  {"model": "ridge", "hyperparameters": {"alpha": 1.0, "log_target": False},
                   "search_space": {"alpha": {"type": "float", "low": 0.01, "high": 10.0},
                                    "log_target": {"type": "categorical", "choices": [False, True]}}}]
    results = _run(tmp_path, {"task": "tabular_regression", "target": "price", "numeric": list("abcd"), "categorical": [],
                              "metric": "rmsle", "direction": "minimize", "n_clusters": None, "candidates": candidates,
                              "hpo_budget_s": 8, "max_trials": 12}, frame)
    lead = results["trials"][:2]
    assert [t["params"].get("lightgbm.log_target") for t in lead] == [1, 0]  # log scale (choice 1) first, then raw
    blend = results["ensemble"]
    if blend is not None:
        assert blend["validation"] < blend["best_single_validation"] and blend["kept"] is True
        assert results["best_model"].startswith("blend")
    assert results["metrics"]["rmsle"] < 0.35


def test_a_large_table_is_searched_with_successive_halving(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30000, 3))
    frame = pd.DataFrame(X, columns=list("abc")).assign(y=X[:, 0] * 2 + np.sin(X[:, 1]) + rng.normal(0, 0.1, 30000))
    space = {"n_estimators": {"type": "int", "low": 20, "high": 60}, "num_leaves": {"type": "int", "low": 4, "high": 64}}
    # a weak "warm start" (few small trees) ranks low on a third of the rows, yet known configurations always finish
    candidates = [{"model": "lightgbm", "hyperparameters": {"n_estimators": 30}, "search_space": space,
                   "warm_starts": [{"n_estimators": 20, "num_leaves": 4}]}]
    results = _run(tmp_path, {"task": "tabular_regression", "target": "y", "numeric": list("abc"), "categorical": [],
                              "metric": "rmse", "direction": "minimize", "n_clusters": None, "candidates": candidates,
                              "hpo_budget_s": 10, "max_trials": 12}, frame)
    assert results["n_pruned"] >= 1 and results["n_trials"] + results["n_pruned"] <= 12
    assert results["trials_per_s"] > 0
    finished = [t["number"] for t in results["trials"]]
    assert finished[:2] == [0, 1]  # the default and the warm start


def test_a_run_with_a_latency_limit_keeps_the_single_model(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(800, 3))
    frame = pd.DataFrame(X, columns=list("abc")).assign(y=X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(0, 0.3, 800))
    candidates = [{"model": "lightgbm", "hyperparameters": {"n_estimators": 50}, "search_space": {}},
                  {"model": "ridge", "hyperparameters": {"alpha": 1.0}, "search_space": {}},
                  {"model": "extra_trees", "hyperparameters": {"n_estimators": 50}, "search_space": {}}]
    results = _run(tmp_path, {"task": "tabular_regression", "target": "y", "numeric": list("abc"), "categorical": [],
                              "metric": "rmse", "direction": "minimize", "n_clusters": None, "candidates": candidates,
                              "hpo_budget_s": 5, "max_trials": 3, "limits": {"latency_ms": 50.0}}, frame)
    assert not results["best_model"].startswith("blend")
    if results["ensemble"] is not None:  # a blend validated better, and was refused for the latency limit
        assert results["ensemble"]["kept"] is False and "latency limit" in results["ensemble"]["refused"]


def test_a_trial_that_cannot_finish_within_the_budget_is_not_started(tmp_path):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(6000, 3))
    frame = pd.DataFrame(X, columns=list("abc")).assign(y=X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(0, 0.3, 6000))
    # the default (100 trees) shows what a tree costs; a sampled point has the same, or 100 times as many: those
    # would take far longer than the whole budget
    space = {"n_estimators": {"type": "categorical", "choices": [100, 10000]}}
    candidates = [{"model": "lightgbm", "hyperparameters": {"n_estimators": 100}, "search_space": space}]
    results = _run(tmp_path, {"task": "tabular_regression", "target": "y", "numeric": list("abc"), "categorical": [],
                              "metric": "rmse", "direction": "minimize", "n_clusters": None, "candidates": candidates,
                              "hpo_budget_s": 4, "max_trials": 60}, frame)
    assert results["n_skipped"] >= 1 and results["n_pruned"] == 0
    assert {t["params"]["lightgbm.n_estimators"] for t in results["trials"]} == {0}  # only 100-tree trials ran
    assert results["hpo_seconds"] < 6
