"""The served model's log, its metrics and the drift measure, on their own (the loop through a real server is in
tests/e2e/test_serving.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from automl_agent.monitoring.drift import measure
from automl_agent.monitoring.served_log import ServedLog, read_served
from automl_agent.monitoring.view import PREDICTION, monitored_row, numeric_columns, prediction_value

SCHEMA = {"task": "tabular_classification", "target": "churn", "classes": ["No", "Yes"], "columns": [
    {"name": "tenure", "type": "number"}, {"name": "plan", "type": "category"}]}


def test_the_view_keeps_table_values_and_only_numbers_of_text_images_and_series():
    schema = {"task": "text_classification", "columns": [
        {"name": "age", "type": "number"}, {"name": "city", "type": "category"}, {"name": "message", "type": "text"},
        {"name": "scan", "type": "image"}, {"name": "history", "type": "series", "length": 3},
        {"name": "node", "type": "node"}]}
    row = monitored_row({"age": 41, "city": 7, "message": "call me now please", "scan": "A" * 4096,
                         "history": [1.0, None, 4.0], "node": "n17"}, schema)
    assert row == {"age": 41.0, "city": "7", "message__chars": 18, "message__words": 4, "scan__kilobytes": 3.0,
                   "history__length": 3, "history__mean": 2.5, "history__last": 4.0}
    assert "call me" not in json.dumps(row) and "AAAA" not in json.dumps(row)  # no raw text or image is kept
    assert set(numeric_columns(schema)) == {k for k in row if k != "city"}
    assert prediction_value([3.5, 3.7], "time_series_forecasting") == 3.5 and prediction_value(1, "text_classification") == "1"


def test_the_log_rotates_at_its_cap_and_reads_back_every_process_and_version(tmp_path):
    log = ServedLog(tmp_path, SCHEMA, model="churn:2", max_mb=0.01, files=3)  # 3 files of about 3.4 kB
    for i in range(400):
        log.write([{"tenure": i, "plan": "basic", "api_key": "secret-1"}], ["Yes"])
    log.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 3 and sum(p.stat().st_size for p in tmp_path.iterdir()) < 12_000, files
    assert "secret-1" not in "".join(p.read_text() for p in tmp_path.iterdir())
    (tmp_path / "served-1.jsonl").write_text('{"t": 1, "m": "churn:1", "x": {"tenure": 5, "plan": "pro"}, "y": "No"}\n'
                                             '{"t": 2, "m": "chu')  # another process, its last line cut mid-write
    served = read_served(tmp_path)
    assert list(served.columns) == ["tenure", "plan", PREDICTION, "served_at", "served_by"]
    assert served["served_by"].value_counts()["churn:1"] == 1 and served.iloc[0]["tenure"] == 5
    assert served[served["served_by"] == "churn:2"]["tenure"].max() == 399  # the newest rows survive rotation
    assert len(read_served(tmp_path, since=10**12)) == 0


def test_sampling_keeps_about_its_share_and_zero_keeps_no_file(tmp_path):
    half = ServedLog(tmp_path / "half", SCHEMA, sample=0.5)
    half.write([{"tenure": 1, "plan": "a"}] * 2000, ["No"] * 2000)
    half.close()
    assert 850 < len(read_served(tmp_path / "half")) < 1150
    off = ServedLog(tmp_path / "off", SCHEMA, sample=0)
    off.write([{"tenure": 1, "plan": "a"}], ["No"])
    assert not off.enabled and not (tmp_path / "off").exists()


def _frames(shift: float, n: int = 400, blank_share: float = 0.0):
    rng = np.random.default_rng(0)
    reference = pd.DataFrame({"tenure": rng.normal(30, 10, 3000), "charges": rng.normal(70, 20, 3000),
                              "plan": rng.choice(["basic", "pro", "max"], 3000), PREDICTION: rng.choice(["No", "Yes"], 3000)})
    served = pd.DataFrame({"tenure": rng.normal(30 + shift, 10, n), "charges": rng.normal(70, 20, n),
                           "plan": rng.choice(["basic", "pro", "max"], n), PREDICTION: rng.choice(["No", "Yes"], n)})
    served.loc[: int(n * blank_share) - 1, "charges"] = None
    return reference, served


def test_unshifted_traffic_passes_and_a_shifted_column_is_named(tmp_path):
    reference, same = _frames(shift=0)
    calm = measure(reference, same, ["tenure", "charges"], html_path=tmp_path / "calm.html")
    assert not calm.drifted and calm.drifted_columns == [] and (tmp_path / "calm.html").stat().st_size > 10_000
    assert {c.method for c in calm.columns} == {"ks", "chisquare"}  # a few hundred records: tests that know n

    _, shifted = _frames(shift=15)
    moved = measure(reference, shifted, ["tenure", "charges"], drift_share=0.3)
    assert moved.drifted and moved.drifted_columns == ["tenure"] and "tenure" in moved.reasons[0]
    assert not moved.prediction.drifted


def test_a_column_gone_blank_has_drifted_and_a_large_sample_uses_distances():
    reference, served = _frames(shift=0, n=2000, blank_share=0.5)
    summary = measure(reference, served, ["tenure", "charges"])
    charges = next(c for c in summary.columns if c.column == "charges")
    assert charges.drifted and charges.missing_served == 0.5 and "blank in 50%" in charges.note
    assert "Wasserstein" in next(c for c in summary.columns if c.column == "tenure").method


def test_prediction_metrics_count_classes_and_bound_the_labels(tmp_path):
    from prometheus_client import REGISTRY

    from automl_agent.monitoring.service_metrics import PredictionMetrics

    metrics = PredictionMetrics(SCHEMA)
    before = REGISTRY.get_sample_value("automl_agent_predictions_total", {"prediction": "Yes"}) or 0
    metrics.answered(["Yes", "No", "Yes", "Maybe"])
    assert REGISTRY.get_sample_value("automl_agent_predictions_total", {"prediction": "Yes"}) == before + 2
    assert REGISTRY.get_sample_value("automl_agent_predictions_total", {"prediction": "(other)"}) >= 1
    PredictionMetrics(SCHEMA)  # a second service object in one process registers nothing twice


def _workspace_with_traffic(root, served: pd.DataFrame, reference: pd.DataFrame) -> None:
    """A run r1 that registered churn v1 and kept its reference, and the log of what churn:1 answered."""
    from automl_agent.workspace import RegisteredModel, RunRecord, Workspace

    workspace = Workspace(root)
    workspace.save(RunRecord.model_validate({"run_id": "r1", "instruction": "predict churn", "status": "succeeded",
                                             "registered_model": RegisteredModel(name="churn", version="1",
                                                                                 alias="champion")}))
    (workspace.run_dir("r1") / "monitoring").mkdir()
    reference.to_parquet(workspace.run_dir("r1") / "monitoring" / "reference.parquet")
    schema = {"task": "tabular_classification", "columns": [
        {"name": c, "type": "number" if c in ("tenure", "charges") else "category"} for c in served if c != PREDICTION]}
    log = ServedLog(root / "monitoring" / "churn", schema, model="churn:1")
    log.write(served.drop(columns=[PREDICTION]).to_dict(orient="records"), list(served[PREDICTION]))
    log.close()


def test_monitor_refuses_too_little_traffic_with_what_to_do(tmp_path, monkeypatch, capsys):
    from automl_agent import cli

    monkeypatch.chdir(tmp_path)
    reference, served = _frames(shift=0, n=20)
    _workspace_with_traffic(tmp_path / "ws", served, reference)
    code = cli.main(["--workdir", str(tmp_path / "ws"), "monitor", "r1"])
    err = capsys.readouterr().err
    assert code == 2 and "answered 20 logged records" in err and "lower --min-rows" in err
    assert cli.main(["--workdir", str(tmp_path / "ws"), "monitor", "r1", "--drift-share", "2"]) == 2


@pytest.mark.parametrize("target", ["nope-run", "models:/"])
def test_monitor_of_an_unknown_model_says_what_exists(tmp_path, monkeypatch, capsys, target):
    from automl_agent import cli

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path / 'mlflow.db'}")
    assert cli.main(["--workdir", str(tmp_path / "ws"), "monitor", target]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_the_watch_flow_judges_drift_and_says_why_it_did_not_judge(tmp_path, monkeypatch):
    from automl_agent.flows.monitoring import drift_check, verdict_markdown
    from automl_agent.monitoring.check import DriftCheck

    monkeypatch.chdir(tmp_path)
    reference, served = _frames(shift=15, n=300)
    _workspace_with_traffic(tmp_path / "ws", served, reference)
    check = DriftCheck(target="r1", workdir=str(tmp_path / "ws"), tracking_uri=f"sqlite:///{tmp_path / 'm.db'}")
    verdict = drift_check.fn(check)
    assert verdict.drifted and verdict.model == "churn:1" and "tenure" in verdict.reason
    page = verdict_markdown(verdict)
    assert "**DRIFTED**" in page and "| tenure | ks |" in page and verdict.result.mlflow_run_id
    quiet = drift_check.fn(check.model_copy(update={"min_rows": 1000}))
    assert not quiet.drifted and quiet.reason.startswith("not judged: churn:1 answered 300 logged records")


def test_one_column_far_from_training_is_drift_even_among_many_calm_ones():
    rng = np.random.default_rng(1)
    columns = [f"c{i}" for i in range(12)]
    reference = pd.DataFrame({c: rng.normal(0, 1, 4000) for c in columns})
    reference["region"] = rng.choice([f"r{i}" for i in range(15)], 4000)  # many levels: noisy at small n
    reference[PREDICTION] = rng.choice(["No", "Yes"], 4000)
    calm = reference.sample(300, random_state=2).reset_index(drop=True)
    summary = measure(reference, calm, columns)
    assert not summary.drifted, summary.reasons
    moved = reference.sample(1500, random_state=3).reset_index(drop=True)
    moved["c3"] = moved["c3"] + 0.5  # half a standard deviation, one column of thirteen
    summary = measure(reference, moved, columns)
    assert summary.drifted and summary.reasons == [f"far from training: c3 (distance {summary.columns[3].distance:.2g})"]
    assert summary.drifted_share < summary.drift_share_limit  # the share rule alone would have missed it


def test_a_served_label_reads_as_the_training_table_read_it():
    """A client sending the raw table's 'WD ' must reach the model (and the log) as the 'WD' the reader trained on:
    found by the blind drift batch, where ordinary Ames rows looked like a new Sale_Type."""
    from automl_agent.serving.payload import records_frame

    schema = {"task": "tabular_regression", "columns": [{"name": "sale_type", "type": "category"},
                                                        {"name": "note", "type": "text"}]}
    record = {"sale_type": "WD ", "note": "  cash\x07 sale "}
    assert records_frame([record], schema).iloc[0].tolist() == ["WD", "cash sale"]
    assert monitored_row(record, schema) == {"sale_type": "WD", "note__chars": 9, "note__words": 2}
