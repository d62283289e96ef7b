"""The measurements every generated script imports: metrics, serving latency, parameter counts, serving schema."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from automl_agent import evaluation
from automl_agent.trainkit.runtime import FrameEncoder


def test_binary_metrics_score_the_positive_label_and_multiclass_ones_are_macro_averaged():
    truth, pred = ["no", "yes", "yes", "no"], ["no", "yes", "no", "no"]
    binary = evaluation.classification_metrics(truth, pred, proba=np.array([0.1, 0.9, 0.4, 0.2]), pos_label="yes")
    assert binary["accuracy"] == 0.75 and binary["recall"] == 0.5 and binary["precision"] == 1.0
    assert binary["roc_auc"] == 1.0
    multi = evaluation.classification_metrics(["a", "b", "c"], ["a", "b", "b"])
    assert multi["f1"] == pytest.approx((1 + 2 / 3 + 0) / 3) and "roc_auc" not in multi


def test_regression_metrics_leave_out_what_the_truth_cannot_support():
    full = evaluation.regression_metrics([1.0, 2.0, 4.0], [1.0, 2.0, 3.0])
    assert full["mae"] == pytest.approx(1 / 3) and {"rmsle", "mape"} <= set(full)
    signed = evaluation.regression_metrics([-1.0, 0.0, 1.0], [0.0, 0.0, 0.0])
    assert "rmsle" not in signed and "mape" not in signed


def test_the_threshold_search_finds_the_cut_between_the_classes():
    truth = np.array([0] * 6 + [1] * 4)
    proba = np.array([0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.6, 0.7, 0.8])
    threshold, f1 = evaluation.best_threshold(truth, proba, pos_label=1)
    assert 0.3 < threshold <= 0.35 and f1 == 1.0


def test_request_timing_drops_caches_before_each_request_and_stops_at_its_deadline():
    seen, cleared = [], []
    median, p95 = evaluation.time_requests(seen.append, ["a", "b"], runs=10, before_each=lambda: cleared.append(1))
    assert seen[0] == "a" and seen[1:] == ["a", "b"] * 5 and len(cleared) == 10 and 0 <= median <= p95
    import time
    calls = []
    evaluation.time_requests(lambda r: (calls.append(r), time.sleep(0.01)), [1], runs=1000, deadline_s=0.05,
                             min_runs=3, warm_up=False)
    assert 3 <= len(calls) < 100


def test_parameters_and_schema_of_a_fitted_table_model():
    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "colour": ["r", "g", "r", "b", "g", "r"]})
    y = pd.Series(["a", "b", "a", "b", "a", "b"])
    model = Pipeline([("preprocess", FrameEncoder(numeric=["x"], categorical=["colour"], scale=True)),
                      ("model", LogisticRegression())]).fit(frame, y)
    assert evaluation.count_parameters(model) == 1 + 3 + 1 + getattr(model[0], "n_parameters_", 0)
    schema = evaluation.tabular_schema(frame, y, task="tabular_classification", target="label", numeric=["x"],
                                       categorical=["colour"], text=[], classification=True)
    x, colour = schema["columns"]
    assert (x["min"], x["max"], x["integer"]) == (1.0, 6.0, True)
    assert colour["levels"][0] == "r" and colour["mode"] == "r"
    assert schema["classes"] == ["a", "b"] and schema["example"][0] == {"x": 1, "colour": "r"}


def test_label_metrics_are_binary_on_the_last_label_and_macro_for_more_classes():
    binary = evaluation.label_metrics(["no", "yes", "yes", "no"], ["no", "yes", "no", "no"])
    assert binary == evaluation.classification_metrics(["no", "yes", "yes", "no"], ["no", "yes", "no", "no"],
                                                       pos_label="yes")
    assert binary["recall"] == 0.5 and "roc_auc" not in binary
    assert evaluation.label_metrics(["a", "b", "c"], ["a", "b", "b"])["f1"] == pytest.approx((1 + 2 / 3 + 0) / 3)


def test_an_enqueued_default_trial_tries_that_candidate_with_its_defaults():
    import optuna

    from automl_agent.trainkit.search import enqueue_defaults, suggest_candidate, trial_time_limit

    candidates = [{"model": "a", "hyperparameters": {"x": 3}, "search_space": {"x": {"type": "int", "low": 1, "high": 9}}},
                  {"model": "b", "hyperparameters": {"c": "q"},
                   "search_space": {"c": {"type": "categorical", "choices": ["p", "q"]}}}]
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    enqueue_defaults(study, candidates, first=("b",))
    tried = []
    study.optimize(lambda trial: tried.append(suggest_candidate(trial, candidates)) or 0.0, n_trials=4)
    assert [(c["model"], p) for c, p in tried[:2]] == [("b", {"c": "q"}), ("a", {"x": 3})]
    assert all(c in candidates and set(p) == set(c["search_space"]) for c, p in tried)
    import time
    now = time.perf_counter()
    assert trial_time_limit(60.0, now) == pytest.approx(30.0, abs=0.1)
    assert trial_time_limit(60.0, now - 50) == pytest.approx(10.0, abs=0.1)
    assert trial_time_limit(60.0, now - 70) == 5.0


def test_binary_metrics_hold_when_a_stray_third_label_reaches_the_test_rows():
    """A class of two rows (a repeated header row read as a label) lands in the test split: the F1 of the positive
    class is still measured, not a ValueError that fails the run."""
    scores = evaluation.classification_metrics(["No", "Yes", "churn", "Yes"], ["No", "Yes", "No", "No"],
                                               proba=np.array([0.1, 0.8, 0.3, 0.4]), pos_label="Yes")
    assert scores["f1"] == pytest.approx(2 / 3) and scores["recall"] == 0.5 and "roc_auc" in scores
