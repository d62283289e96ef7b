"""A boosting model stops where its time ends, and is the model of the rounds it built (issue 30: a budget is a
promise at any table size)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from automl_agent.trainkit.estimators import (ROUNDS_PARAM, STAGED_ROUNDS, TrainingDeadline, deadline_fit_params,
                                              fit_within, make_estimator)


def _table(rows: int = 20_000):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(rows, 8)), columns=[f"x{i}" for i in range(8)])
    return X, X.x0 * 3 + np.sin(X.x1) + rng.normal(scale=0.1, size=rows)


@pytest.mark.parametrize("key", ["lightgbm", "catboost"])
@pytest.mark.parametrize("log_target", [False, True], ids=["raw", "log-target-wrapper"])
def test_a_deadline_stops_boosting_between_rounds_and_keeps_what_was_built(key, log_target):
    X, y = _table()
    rounds = 20_000  # far more than a twentieth of a second allows
    params = {ROUNDS_PARAM[key]: rounds, "log_target": log_target}
    pipe = Pipeline([("scale", StandardScaler()),
                     ("model", make_estimator(key, params, task="tabular_regression", n_jobs=1))])
    deadline = TrainingDeadline(0.05)
    pipe.fit(X, y - y.min() + 1 if log_target else y, **deadline_fit_params(key, "model", deadline))
    assert deadline.rounds is not None and 0 < deadline.rounds < rounds
    booster = pipe[-1].regressor_ if log_target else pipe[-1]
    built = booster.booster_.num_trees() if key == "lightgbm" else booster.tree_count_
    assert built <= deadline.rounds + 1
    assert np.isfinite(pipe.predict(X.head(5))).all()


def test_a_fit_within_its_time_is_left_alone_and_other_models_take_no_deadline():
    X, y = _table(2_000)
    deadline = TrainingDeadline(600)
    model = make_estimator("lightgbm", {"n_estimators": 20}, task="tabular_regression")
    model.fit(X, y, **{k.split("__")[1]: v for k, v in deadline_fit_params("lightgbm", "model", deadline).items()})
    assert deadline.rounds is None and model.booster_.num_trees() == 20
    assert deadline_fit_params("random_forest", "model", deadline) == {}
    assert deadline_fit_params("lightgbm", "model", None) == {}


@pytest.fixture(autouse=True)
def _one_thread():
    """Histogram boosting's OpenMP threads spin while they wait: on a machine whose cores are busy (the test suite
    runs on two workers) a 40-round fit took minutes. The sandbox sets OMP_WAIT_POLICY=PASSIVE for the same reason."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1):
        yield


def _pipe(key: str, params: dict, task: str) -> Pipeline:
    return Pipeline([("scale", StandardScaler()), ("model", make_estimator(key, params, task=task, n_jobs=1))])


@pytest.mark.parametrize("key,task,log_target", [
    ("hist_gradient_boosting", "tabular_regression", False),
    ("hist_gradient_boosting", "tabular_classification", False),
    ("random_forest", "tabular_classification", False),
    ("extra_trees", "tabular_regression", True),
])
def test_ensembles_without_a_round_callback_grow_in_stages_until_the_deadline(key, task, log_target):
    X, y = _table(5_000)
    if task == "tabular_classification":
        y = (y > y.median()).astype(int)
    elif log_target:
        y = y - y.min() + 1
    rounds = 100_000
    params = {ROUNDS_PARAM[key]: rounds, **({"early_stopping": False} if key.startswith("hist") else {}),
              **({"log_target": True} if log_target else {})}
    pipe = _pipe(key, params, task)
    deadline = TrainingDeadline(0.5)
    fit_within(pipe, X, y, key, deadline)
    assert deadline.rounds is not None and 10 <= deadline.rounds < rounds
    model = pipe[-1].regressor_ if log_target else pipe[-1]
    built = model.n_iter_ if key.startswith("hist") else len(model.estimators_)
    assert built == deadline.rounds
    # the fitted model says the rounds it has, and warm starting is off again, so a refit with these params matches
    assert model.get_params()[STAGED_ROUNDS[key]] == built and model.get_params()["warm_start"] is False
    assert np.isfinite(pipe.predict(X.head(5))).all()


@pytest.mark.parametrize("key", ["hist_gradient_boosting", "random_forest"])
def test_a_staged_fit_that_finishes_in_time_is_the_plain_fit(key):
    X, y = _table(3_000)
    params = {ROUNDS_PARAM[key]: 40}
    plain = _pipe(key, params, "tabular_regression").fit(X, y)
    deadline = TrainingDeadline(600)
    staged = fit_within(_pipe(key, params, "tabular_regression"), X, y, key, deadline)
    assert deadline.rounds is None
    assert np.allclose(plain.predict(X.head(200)), staged.predict(X.head(200)))
    assert staged[-1].get_params()[STAGED_ROUNDS[key]] == 40


def test_a_forest_whose_one_tree_would_outlast_the_trial_grows_each_tree_on_a_sample_of_rows():
    X, y = _table(60_000)
    deadline = TrainingDeadline(0.3)  # one full-depth tree on 60k rows takes longer than a fifth of this
    pipe = _pipe("random_forest", {"n_estimators": 100_000, "max_features": 1.0}, "tabular_regression")
    fit_within(pipe, X, y, "random_forest", deadline)
    assert deadline.adjusted["bootstrap"] is True and 0 < deadline.adjusted["max_samples"] < 1
    # the refit takes the same hyperparameters: the fitted forest says them
    assert pipe[-1].get_params()["max_samples"] == deadline.adjusted["max_samples"]
    assert deadline.rounds is not None and np.isfinite(pipe.predict(X.head(5))).all()


def test_the_folds_of_one_trial_measure_a_tree_once_and_share_its_rows_per_tree(monkeypatch):
    import automl_agent.trainkit.estimators as estimators

    X, y = _table(60_000)
    deadline = TrainingDeadline(0.3)
    fit_within(_pipe("random_forest", {"n_estimators": 100_000, "max_features": 1.0}, "tabular_regression"), X, y,
               "random_forest", deadline)
    measured = dict(deadline.adjusted)
    monkeypatch.setattr(estimators, "PILOT_ROWS", None)  # a second pilot would fail on it
    deadline.until += 0.3
    second = _pipe("random_forest", {"n_estimators": 100_000, "max_features": 1.0}, "tabular_regression")
    fit_within(second, X.iloc[:48_000], y.iloc[:48_000], "random_forest", deadline)
    assert second[-1].get_params()["max_samples"] == measured["max_samples"] and deadline.adjusted == measured


def test_a_forest_on_a_small_table_is_not_sampled():
    X, y = _table(3_000)
    deadline = TrainingDeadline(0.3)
    fit_within(_pipe("extra_trees", {"n_estimators": 50}, "tabular_regression"), X, y, "extra_trees", deadline)
    assert deadline.adjusted == {}
