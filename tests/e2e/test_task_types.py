"""Each task type's run served over HTTP (forecast, images, graph) and its Gradio demo page and report looked at in
a real browser (Chromium)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tests import browser
from tests.e2e.runs import launch, stop_server, wait_ready

pytestmark = pytest.mark.e2e



def test_a_forecast_is_served_over_http(forecast_run):
    workdir, proc, env = forecast_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    assert record["task_type"] == "time_series_forecasting" and record["target"] == "OT"
    assert {"rmsle", "mae"} <= set(record["metrics"])
    server, port, _ = launch("serve", forecast_run)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        history = json.loads(Path(record["demo_path"]).with_name("demo_config.json").read_text())["schema"]["example"][0]["history"]
        assert len(history) == 96
        ok = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"history": history}]}, timeout=30)
        assert ok.status_code == 200, ok.text
        forecast = ok.json()["predictions"][0]
        assert len(forecast) == 24 and all(isinstance(v, float) for v in forecast)
        short = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"history": history[:10]}]}, timeout=30)
        assert short.status_code == 400 and "at least 96 finite numbers" in short.text
    finally:
        stop_server(server)


def _forecast_demo_api(url: str, run, tmp_path) -> None:
    """An uploaded CSV of recent values becomes the history; the forecast has the horizon's length."""
    import pandas as pd
    from gradio_client import Client, handle_file

    from tests.conftest import DATASETS

    upload = tmp_path / "recent.csv"
    pd.read_csv(DATASETS / "ETTh1.csv").tail(120).to_csv(upload, index=False)  # the demo picks the OT column
    client = Client(url, verbose=False)
    text = client.predict(handle_file(str(upload)), api_name="/upload_history")
    assert len(text.split(",")) == 120
    headline, forecast, _plot = client.predict(text, api_name="/predict")
    assert headline.startswith("### next 24 steps of OT")
    assert len(forecast.split(",")) == 24 and all(float(v) == float(v) for v in forecast.split(","))


def test_an_image_classifier_is_served_over_http(image_run):
    from automl_agent.trainkit.runtime import image_to_base64

    workdir, proc, env = image_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    assert record["task_type"] == "image_classification" and record["metrics"]["accuracy"] >= 0.85
    server, port, _ = launch("serve", image_run)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        labels = Path(record["data_path"])
        import pandas as pd

        rows = pd.read_csv(labels).tail(5)
        payload = {"records": [{"image": image_to_base64(str(labels.parent / p))} for p in rows["image"]]}
        ok = httpx.post(f"http://127.0.0.1:{port}/predict", json=payload, timeout=60)
        assert ok.status_code == 200, ok.text
        predictions = ok.json()["predictions"]
        assert len(predictions) == 5 and set(predictions) <= {str(d) for d in range(10)}
        assert sum(p == str(t) for p, t in zip(predictions, rows["label"])) >= 3
        bad = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"image": 3}]}, timeout=30)
        assert bad.status_code == 400 and "base64" in bad.text
    finally:
        stop_server(server)


def test_a_node_classifier_is_served_over_http(graph_run):
    workdir, proc, env = graph_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    assert record["task_type"] == "node_classification" and record["target"] == "community"
    assert record["metrics"]["accuracy"] >= 0.5  # 4 communities: chance is about 0.25
    server, port, _ = launch("serve", graph_run)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", server)
        ok = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"node": "0"}, {"node": 33}]}, timeout=60)
        assert ok.status_code == 200, ok.text
        assert ok.json()["predictions"] == ["c1", "c0"]  # the instructor's and the administrator's communities
        unknown = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"node": "999"}]}, timeout=30)
        assert unknown.status_code == 400 and "unknown node" in unknown.text
        wrong = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": [{"node": [1]}]}, timeout=30)
        assert wrong.status_code == 400 and "node id" in wrong.text
    finally:
        stop_server(server)



def _churn_demo_api(url: str, run, tmp_path) -> None:
    """The demo's API as gradio_client calls it: the model's decision and the class probabilities."""
    from gradio_client import Client

    record = json.loads(run[1].stdout)
    schema = json.loads(Path(record["demo_path"]).with_name("demo_config.json").read_text())["schema"]
    example = schema["example"][0]
    headline, probabilities = Client(url, verbose=False).predict(*[example[c["name"]] for c in schema["columns"]],
                                                                 api_name="/predict")
    assert headline.startswith("### churn: **Yes**") or headline.startswith("### churn: **No**"), headline
    assert {c["label"] for c in probabilities["confidences"]} == {"Yes", "No"}
    assert abs(sum(c["confidence"] for c in probabilities["confidences"]) - 1) < 1e-6


def _graph_demo_api(url: str, run, tmp_path) -> None:
    from gradio_client import Client

    headline, probabilities = Client(url, verbose=False).predict("33", api_name="/predict")
    assert headline == "### community: **c0**" and len(probabilities["confidences"]) == 4


# the demo's API checked with gradio_client, for the tasks whose answers have a shape to check
DEMO_API_CHECKS = {"churn_run": _churn_demo_api, "forecast_run": _forecast_demo_api, "graph_run": _graph_demo_api}
# what each task's demo shows once it has predicted: the page waits for this text
DEMO_ANSWERS = {
    "churn_run": ("tabular_classification", r"churn: (Yes|No)"),
    "text_run": ("text_classification", r"label: (spam|ham)"),
    "regression_run": ("tabular_regression", r"compressive_strength: -?\d"),
    "clustering_run": ("tabular_clustering", r"cluster \d+"),
    "forecast_run": ("time_series_forecasting", r"next 24 steps of OT: -?\d"),
    "image_run": ("image_classification", r"label: \d"),
    "graph_run": ("node_classification", r"community: c\d"),
}


@pytest.mark.parametrize("run_fixture", list(DEMO_ANSWERS))
def test_each_task_types_demo_page_and_report_in_chromium(run_fixture, request, tmp_path):
    """A person's view: the demo page in a real browser predicts a held-out example row, and the report opens with
    every picture drawn. Screenshots are saved (docs/make_screenshots.py makes docs/screenshots with them). The
    same demo's API is checked with gradio_client where its answer has a shape to check."""
    import re

    run = request.getfixturevalue(run_fixture)
    task, answer = DEMO_ANSWERS[run_fixture]
    record = json.loads(run[1].stdout)
    assert record["task_type"] == task, record
    shots = browser.screenshot_dir(tmp_path)
    demo, port, _ = launch("demo", run)
    try:
        wait_ready(f"http://127.0.0.1:{port}/", demo)
        if run_fixture in DEMO_API_CHECKS:
            DEMO_API_CHECKS[run_fixture](f"http://127.0.0.1:{port}/", run, tmp_path)
        if not Path(browser.CHROMIUM).exists():
            pytest.skip("chromium is not installed (make setup installs it as root); the demo's API was checked")
        shown = browser.try_the_demo(f"http://127.0.0.1:{port}/", re.compile(answer), shots / f"demo-{task}.png")
    finally:
        stop_server(demo)
    assert "Model card" in shown and re.search(r"held-out (rows|nodes|windows|images) the model never saw", shown), \
        shown[:2000]
    assert (shots / f"demo-{task}.png").stat().st_size > 10_000

    report = browser.look_at_report(Path(record["report_path"]).with_suffix(".html"), shots / f"report-{task}.png")
    assert not report["external"], "the report must be self-contained"
    assert report["pictures"] and all(p["width"] > 100 and p["height"] > 100 for p in report["pictures"]), report
    expected = {"tabular_classification": "Confusion matrix", "text_classification": "Confusion matrix",
                "image_classification": "Confusion matrix", "node_classification": "Confusion matrix",
                "tabular_regression": "Predicted against actual", "time_series_forecasting": "Three windows",
                "tabular_clustering": "PCA of the encoded rows"}[task]
    assert any(p["alt"].startswith(expected) for p in report["pictures"]), [p["alt"] for p in report["pictures"]]
