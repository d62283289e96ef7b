"""A text classification run end to end in-process: TF-IDF models searched in the sandbox, the model registered and
predicting from raw text records, the Gradio demo built with a text box."""

from __future__ import annotations

import importlib.util
import json

import mlflow
import pandas as pd
import pytest

from automl_agent.settings import point_mlflow_at

pytestmark = pytest.mark.integration


def test_spam_detection_is_trained_verified_and_served_from_text(run_cli, small_sms, workdir):
    code, record, err = run_cli("run", "Detect spam SMS messages with F1 at least 0.85 and under 200 ms per prediction.",
                                "--data", str(small_sms), "--budget", "10", "--plans", "2", "--model-name", "sms-test")
    assert code == 0, err[-3000:]
    assert record.task_type == "text_classification" and record.target == "label" and record.metric == "f1"
    assert record.metrics["f1"] >= 0.85 and {c.name for c in record.constraints} == {"f1", "latency_ms"}
    families = record.best_model.removeprefix("blend: ").split(" + ")  # one text model, or a blend of several
    assert all(f.split(" x")[0].startswith(("tfidf_", "minilm_")) for f in families), record.best_model
    schema = json.loads((workdir / "runs" / record.run_id / "bento" / "schema.json").read_text())
    assert [c["type"] for c in schema["columns"]] == ["text"]

    point_mlflow_at(record.mlflow_tracking_uri)
    model = mlflow.pyfunc.load_model("models:/sms-test@champion")
    texts = pd.DataFrame({"message": ["WINNER!! You have won a FREE prize, call 09061701461 now to claim",
                                      "ok see you at lunch tomorrow"]})
    assert list(model.predict(texts)) == ["spam", "ham"]

    spec = importlib.util.spec_from_file_location("sms_demo", record.demo_path)
    demo_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo_module)
    demo = demo_module.build_demo()
    assert any(type(block).__name__ == "Textbox" and getattr(block, "label", "") == "message" for block in demo.blocks.values())
