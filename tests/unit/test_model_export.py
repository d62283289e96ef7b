"""The trained model crosses from the sandbox as skops: a planted pickle runs only inside the sandbox, never in
the flow's process, and is refused."""

from __future__ import annotations

import os

import joblib
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from automl_agent.errors import UserFacingError
from automl_agent.model_export import load_trained_model


def test_a_fitted_pipeline_comes_back_from_the_sandbox_and_predicts(tmp_path):
    X, y = np.random.default_rng(0).normal(size=(60, 3)), np.array([0, 1] * 30)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
    (tmp_path / "model").mkdir()
    joblib.dump(model, tmp_path / "model" / "model.joblib")
    loaded = load_trained_model(tmp_path)
    assert (loaded.predict(X) == model.predict(X)).all()
    assert (tmp_path / "model" / "model.skops").is_file()


class Planted:
    """Unpickling this runs a shell command: what a hostile training script could leave as its 'model'."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"echo PLANTED > {self.marker}",)


def test_a_planted_pickle_never_runs_in_the_flows_process(tmp_path):
    marker = tmp_path / "outside" / "PLANTED"
    marker.parent.mkdir()
    (tmp_path / "attempt" / "model").mkdir(parents=True)
    joblib.dump(Planted(marker), tmp_path / "attempt" / "model" / "model.joblib")
    with pytest.raises(UserFacingError) as refused:
        load_trained_model(tmp_path / "attempt")
    assert refused.value.status == "failed"
    assert not marker.exists()
