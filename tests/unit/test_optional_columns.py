"""A column the model saw blank in training is one a caller may leave out: the schema marks it optional, the
registered signature declares it so, the registered model fills it as missing, and the served payload accepts records
without it. A column never seen blank stays required, and its absence is an error that names it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.pipeline import make_pipeline

from automl_agent.serving.frames import as_registered, consumer_signature, example_frame, optional_columns
from automl_agent.serving.payload import PayloadError, check_records, records_frame
from automl_agent.trainkit.evaluation import tabular_schema
from automl_agent.trainkit.runtime import ColumnsAsTrained, FrameEncoder


@pytest.fixture(scope="module")
def trained():
    rng = np.random.default_rng(7)
    n = 300
    frame = pd.DataFrame({"tenure": rng.integers(0, 72, n), "charges": rng.normal(60, 20, n).round(2),
                          "contract": rng.choice(["monthly", "yearly"], n)})
    frame.loc[rng.choice(n, 30, replace=False), "charges"] = np.nan  # the model learns to do without charges
    churn = np.where((frame["tenure"] < 12) & (frame["contract"] == "monthly"), "yes", "no")
    model = make_pipeline(FrameEncoder(numeric=["tenure", "charges"], categorical=["contract"]),
                          HistGradientBoostingClassifier(max_iter=20)).fit(frame, churn)
    schema = tabular_schema(frame, churn, task="tabular_classification", target="churn",
                            numeric=["tenure", "charges"], categorical=["contract"], text=[], classification=True)
    return model, schema, frame


def test_a_column_seen_blank_is_optional_and_the_others_required(trained):
    _, schema, _ = trained
    assert optional_columns(schema) == ["charges"]
    signature = consumer_signature(example_frame(schema), schema)
    assert {spec.name: spec.required for spec in signature.inputs.inputs} == {
        "tenure": True, "charges": False, "contract": True}


def test_the_registered_model_predicts_without_an_optional_column_and_names_a_missing_required_one(trained):
    model, schema, frame = trained
    registered = as_registered(model, schema)
    assert isinstance(registered, ColumnsAsTrained) and list(registered.classes_) == ["no", "yes"]
    without = frame.drop(columns=["charges"]).head(20)
    expected = model.predict(without.assign(charges=np.nan))
    assert list(registered.predict(without)) == list(expected)
    assert registered.predict_proba(without[["contract", "tenure"]]).shape == (20, 2)  # any column order
    with pytest.raises(ValueError, match=r"lacks the columns \['tenure'\].*can do without \['charges'\]"):
        registered.predict(frame.drop(columns=["tenure"]))


def test_a_model_with_no_optional_column_is_registered_as_it_is(trained):
    model, schema, _ = trained
    strict = {**schema, "columns": [{**c, "optional": False} for c in schema["columns"]]}
    assert as_registered(model, strict) is model


def test_a_served_record_may_leave_out_an_optional_column_only(trained):
    _, schema, _ = trained
    records = check_records([{"tenure": 3, "contract": "monthly"}], schema)
    assert records_frame(records, schema)["charges"].isna().all()
    with pytest.raises(PayloadError, match=r"lacks columns \['tenure'\].*may be left out: \['charges'\]"):
        check_records([{"charges": 50.0, "contract": "monthly"}], schema)


def test_a_registry_consumer_loads_and_predicts_without_the_optional_column(trained, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "sqlite:///unused")
    import mlflow

    from automl_agent.platform.tracking import trusted_types

    model, schema, frame = trained
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    registered = as_registered(model, schema)
    example = example_frame(schema)
    with mlflow.start_run():
        info = mlflow.sklearn.log_model(registered, name="model", signature=consumer_signature(example, schema),
                                        input_example=example, serialization_format="skops",
                                        skops_trusted_types=trusted_types(registered))
    loaded = mlflow.pyfunc.load_model(info.model_uri)
    without = frame.drop(columns=["charges"]).head(10)
    assert list(loaded.predict(without)) == list(model.predict(without.assign(charges=np.nan)))
    with pytest.raises(Exception, match="tenure"):
        loaded.predict(frame.drop(columns=["tenure"]).head(10))
