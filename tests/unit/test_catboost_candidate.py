"""CatBoost as a tabular candidate: built from the knowledge base, trained without leaving files behind, counted,
trusted across the sandbox boundary, and named in what the registry and the bento install."""

from __future__ import annotations

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import VotingRegressor
from sklearn.pipeline import Pipeline

from automl_agent.agents import knowledge_base
from automl_agent.agents.contracts import TaskType
from automl_agent.serving.packaging import optional_libraries
from automl_agent.trainkit.estimators import make_estimator
from automl_agent.trainkit.evaluation import count_parameters
from automl_agent.model_export import load_trained_model
from automl_agent.retrieval.sources.openml_source import family_of
from automl_agent.trainkit.runtime import FrameEncoder
from automl_agent.platform.tracking import model_libraries, trusted_types

pytest.importorskip("catboost")


def table(n: int = 240, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"size": rng.uniform(20, 200, n), "rooms": rng.integers(1, 7, n),
                          "area": rng.choice(["north", "south", "centre"], n)})
    price = 1000 * frame["size"] * np.where(frame["area"] == "centre", 1.6, 1.0) + rng.normal(0, 5000, n)
    return frame, price.to_numpy()


def pipeline(key: str, params: dict, task: str) -> Pipeline:
    return Pipeline([("preprocess", FrameEncoder(numeric=["size", "rooms"], categorical=["area"])),
                     ("model", make_estimator(key, params, task=task, n_jobs=1))])


def test_a_regressor_learns_on_the_log_scale_and_writes_no_training_logs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    X, y = table()
    model = pipeline("catboost", {"iterations": 150, "depth": 4, "log_target": True}, "tabular_regression").fit(X, y)
    error = np.sqrt(np.mean((model.predict(X) - y) ** 2))
    assert error < 0.25 * y.std()
    assert not (tmp_path / "catboost_info").exists()
    assert count_parameters(model) > 150  # 150 symmetric trees: their leaf values and splits


def test_balanced_class_weights_reach_catboost_and_labels_stay_as_given():
    X, y = table()
    labels = np.where(y > np.quantile(y, 0.85), "premium", "standard")
    model = pipeline("catboost", {"iterations": 100, "class_weight": "balanced"}, "tabular_classification")
    assert model[-1].get_params()["auto_class_weights"] == "Balanced"
    model.fit(X, labels)
    assert set(model.predict(X)) <= {"premium", "standard"}
    assert model.predict_proba(X).shape == (len(X), 2)


def test_a_blend_with_catboost_crosses_the_sandbox_and_names_its_library(tmp_path):
    X, y = table()
    blend = VotingRegressor([("cat", pipeline("catboost", {"iterations": 80}, "tabular_regression")),
                             ("lgbm", pipeline("lightgbm", {"n_estimators": 40}, "tabular_regression"))]).fit(X, y)
    (tmp_path / "model").mkdir()
    joblib.dump(blend, tmp_path / "model" / "model.joblib")
    loaded = load_trained_model(tmp_path)
    assert np.allclose(loaded.predict(X), blend.predict(X))
    assert model_libraries(trusted_types(blend)) == ["catboost"]
    assert model_libraries(trusted_types(blend.estimators_[1])) == []


def test_the_bento_installs_catboost_only_when_the_registered_model_needs_it(tmp_path):
    (tmp_path / "mlflow_model").mkdir()
    requirements = tmp_path / "mlflow_model" / "requirements.txt"
    requirements.write_text("mlflow==3.17.0\nscikit-learn==1.9.1\nlightgbm==4.7.0\ncatboost==1.2.10\n")
    assert optional_libraries(tmp_path) == ["catboost"]
    requirements.write_text("mlflow==3.17.0\nscikit-learn==1.9.1\nlightgbm==4.7.0\n")
    assert optional_libraries(tmp_path) == []


def test_the_boosting_plans_offer_catboost_and_drop_it_when_it_is_not_installed(monkeypatch):
    for task in (TaskType.tabular_classification, TaskType.tabular_regression):
        assert "catboost" in knowledge_base.plan_templates(task)[0]["models"]
        assert "catboost" in knowledge_base.model_keys(task)
    real = knowledge_base._installed_one
    monkeypatch.setattr(knowledge_base, "_installed_one", lambda module: module != "catboost" and real(module))
    assert "catboost" not in knowledge_base.model_keys(TaskType.tabular_regression)


@pytest.mark.parametrize("flow, family", [("sklearn.ensemble.HistGradientBoostingClassifier", "hist_gradient_boosting"),
                                          ("catboost.CatBoostClassifier(1)", "catboost"),
                                          ("mlr.classif.catboost", "catboost"), ("xgboost.XGBClassifier", "hist_gradient_boosting")])
def test_openml_flows_map_to_the_knowledge_bases_models(flow, family):
    assert family_of(flow) == family
