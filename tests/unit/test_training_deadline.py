"""A boosting model stops where its time ends, and is the model of the rounds it built (issue 30: a budget is a
promise at any table size)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from automl_agent.trainkit.estimators import ROUNDS_PARAM, TrainingDeadline, deadline_fit_params, make_estimator


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
