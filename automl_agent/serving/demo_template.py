"""Gradio demo for a model delivered by automl-agent.

Run it with `automl-agent demo RUN_ID` or `python demo.py [--port 7860]`. It loads the registered model version
from the MLflow store recorded in demo_config.json beside this file, and shows above its form what the model does,
how well it did on rows it never saw, and when it was trained.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
from pathlib import Path
from typing import Any

import gradio as gr
import mlflow
import numpy as np
import pandas as pd

from automl_agent.serving.frames import typed_frame

HERE = Path(__file__).resolve().parent
SETTINGS = json.loads((HERE / "demo_config.json").read_text())
SCHEMA = SETTINGS["schema"]
TASK = SCHEMA["task"]
CARD = SETTINGS.get("card") or {}
TRUE_WORDS = {"yes", "true", "y", "t", "1"}
BOOLEAN_PAIRS = [{"yes", "no"}, {"true", "false"}, {"y", "n"}, {"t", "f"}]
MAX_NODE_CHOICES = 5000
UNIT = {"node_classification": "nodes", "time_series_forecasting": "windows",
        "image_classification": "images"}.get(TASK, "rows")
# an 8x8 digit would show as a dot: small images are drawn large, pixel by pixel
CSS = "#input-image img {min-width: 160px; min-height: 160px; object-fit: contain; image-rendering: pixelated}"


def load_model():
    """The registered model itself: the form below only produces values of the training columns' types."""
    mlflow.set_tracking_uri(SETTINGS["tracking_uri"])
    return mlflow.pyfunc.load_model(SETTINGS["model_uri"]).get_raw_model()


def series_from_file(path: str, name: str) -> str:
    """The values of an uploaded series file as the text box takes them: the column called `name`, else the last
    numeric column, oldest first."""
    try:
        table = pd.read_csv(path, sep=None, engine="python")
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise gr.Error(f"could not read the file as CSV: {exc}") from None
    if name in table.columns:
        values = pd.to_numeric(table[name], errors="coerce")
    else:
        numeric = [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c])]
        if not numeric:  # a headerless single column: its first value went into the header
            table = pd.read_csv(path, header=None, sep=None, engine="python")
            numeric = [c for c in table.columns if pd.api.types.is_numeric_dtype(table[c])]
        if not numeric:
            raise gr.Error(f"the file has no numeric column (looked for {name!r} or any column of numbers)")
        values = table[numeric[-1]]
    return ", ".join(f"{v:g}" for v in values.dropna())


def parse_series(text: str) -> list[float]:
    values = []
    for part in str(text or "").replace("\n", ",").replace(";", ",").split(","):
        if part.strip():
            try:
                values.append(float(part))
            except ValueError:
                raise gr.Error(f"{part.strip()!r} is not a number; give the series as numbers separated by commas") from None
    return values


def boolean_levels(column: dict) -> tuple[Any, Any] | None:
    """(the value for ticked, for unticked) of a yes/no column, which the form shows as a checkbox."""
    if column["type"] == "number" and column.get("integer") and column.get("min") == 0 and column.get("max") == 1:
        return 1, 0
    levels = column.get("levels") or []
    if column["type"] == "category" and len(levels) == 2 and {str(v).lower() for v in levels} in BOOLEAN_PAIRS:
        true = next(v for v in levels if str(v).lower() in TRUE_WORDS)
        return true, next(v for v in levels if v != true)
    return None


def card_markdown() -> str:
    """The model card: task, held-out metrics, constraints, data and when it was trained."""
    task = TASK.replace("_", " ")
    target = f" `{CARD['target']}`" if CARD.get("target") else ""
    lines = [f"**{task}**{' of' if target else ''}{target}, learned from `{CARD.get('data', '?')}`"
             + (f" ({CARD['n_train']} training {UNIT})" if CARD.get("n_train") else "")
             + (f" · model `{CARD['model']}`" if CARD.get("model") else "")
             + (f" · trained {str(CARD['trained_at']).replace('T', ' ')}" if CARD.get("trained_at") else "")
             + (f" · run `{CARD['run_id']}`" if CARD.get("run_id") else "")]
    metrics = CARD.get("metrics") or {}
    if metrics:
        lines += ["", f"Scores on {CARD.get('n_test') or 'the'} held-out {UNIT} the model never saw in training:", "",
                  "| " + " | ".join(metrics) + " |", "|" + "---|" * len(metrics),
                  "| " + " | ".join(f"{v:.4g}" for v in metrics.values()) + " |"]
    checks = CARD.get("constraints") or []
    if checks:
        said = [f"{c['name']} {c['op']} {c['target']:g}: {'met' if c['satisfied'] else '**not met**'} (measured "
                f"{'n/a' if c['measured'] is None else format(c['measured'], '.4g')})" for c in checks]
        lines += ["", "Requirements: " + " · ".join(said)]
    if SETTINGS.get("typical_error") is not None:
        lines += ["", f"Typical error: ±{SETTINGS['typical_error']:.4g} (mean absolute error on held-out {UNIT})."]
    if CARD.get("registered"):
        lines += ["", f"Registered as `{CARD['registered']}`."]
    return "\n".join(lines)


def history_figure(history: list[float], forecast: list[float] | None = None, name: str = "value"):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3))
    ax.plot(range(len(history)), history, color="#444444", linewidth=1.2, label="history")
    if forecast:
        steps = range(len(history) - 1, len(history) + len(forecast))
        ax.plot(steps, [history[-1], *forecast], color="#d8573b", linewidth=1.8, linestyle="--", label="forecast")
        ax.axvline(len(history) - 1, color="grey", linestyle=":", linewidth=1)
    ax.set(xlabel="step", ylabel=name)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    plt.close(fig)
    return fig


def series_figure(values: list[float], name: str):
    """The series as typed or uploaded, drawn; nothing while the box is empty."""
    return history_figure(values, name=name) if values else None


class Form:
    """One input per training column, of the kind that fits it, and the conversion back to the model's values."""

    def __init__(self, columns: list[dict], model: Any):
        self.columns = columns
        self.model = model
        self.example = (SCHEMA.get("example") or [{}])[0]

    def field(self, column: dict):
        name, kind = column["name"], column["type"]
        default = self.example.get(name)
        levels = boolean_levels(column)
        if levels is not None:
            return gr.Checkbox(label=name, value=default is not None and str(default) == str(levels[0]))
        if kind == "number":
            low, high = column.get("min"), column.get("max")
            value = default if default is not None else column.get("median")
            if low is None or high is None or not high > low or not all(map(math.isfinite, (low, high))):
                return gr.Number(label=name, value=value)
            step = 1 if column.get("integer") else float(f"{(high - low) / 200:.1g}")
            return gr.Slider(minimum=low, maximum=high, value=value, step=step, label=name,
                             info=f"training range {low:g} to {high:g}")
        if kind == "image":
            first = (SETTINGS.get("examples") or [{}])[0].get(name)
            return gr.Image(label=name, type="filepath", height=220, value=str(HERE / first) if first else None,
                            elem_id="input-image")
        if kind == "series":
            shown = ", ".join(f"{v:g}" for v in (default or [])[-column["length"]:])
            box = gr.Textbox(label=f"{name}: the last {column['length']} values, oldest first", value=shown, lines=3,
                             placeholder="comma-separated numbers, or upload a file below")
            upload = gr.UploadButton(f"Upload a CSV of {name} values", file_types=[".csv", ".txt"], size="sm")
            upload.upload(lambda path, n=name: series_from_file(path, n), inputs=upload, outputs=box,
                          api_name=f"upload_{name}")
            plot = gr.Plot(label=f"{name} as given", value=series_figure(default or [], name))
            box.change(lambda text, n=name: series_figure(parse_series(text), n), inputs=box, outputs=plot,
                       api_visibility="private")
            return box
        if kind == "node":
            known = getattr(self.model, "node_ids_", None)
            choices = [str(v) for v in (known if known is not None else column.get("examples", []))][:MAX_NODE_CHOICES]
            return gr.Dropdown(choices=choices, value=str(default) if default is not None else None, filterable=True,
                               allow_custom_value=True, label=f"{name}: a node of the graph ({column.get('n_nodes', '?')} nodes)")
        if kind == "text":
            return gr.Textbox(label=name, value=default or "", lines=4, placeholder="type or paste a text")
        return gr.Dropdown(choices=column["levels"], label=name, allow_custom_value=True, filterable=True,
                           value=default if default is not None else column.get("mode"))

    def frame(self, values: tuple) -> pd.DataFrame:
        row = {}
        for column, value in zip(self.columns, values):
            levels = boolean_levels(column)
            if levels is not None:  # an API caller may send the column's own value instead of a tick
                ticked = value == str(levels[0]) or value.lower() in TRUE_WORDS if isinstance(value, str) else bool(value)
                value = levels[0] if ticked else levels[1]
            elif column["type"] == "image":
                if not value:
                    raise gr.Error("upload an image first")
                with open(value, "rb") as handle:
                    value = base64.b64encode(handle.read()).decode()
            elif column["type"] == "series":
                numbers = parse_series(value)
                if len(numbers) < column["length"]:
                    raise gr.Error(f"{column['name']} needs at least {column['length']} numbers; got {len(numbers)}")
                value = numbers[-column["length"]:]
            row[column["name"]] = value
        return typed_frame(pd.DataFrame([row]), self.columns)

    def example_rows(self) -> list[list]:
        """Held-out rows as the form's values (checkboxes ticked, images from the copies beside the demo)."""
        rows = []
        for record in SETTINGS.get("examples") or []:
            row = []
            for column in self.columns:
                value = record.get(column["name"])
                levels = boolean_levels(column)
                if levels is not None:
                    value = str(value) == str(levels[0])
                elif column["type"] == "image":
                    value = str(HERE / str(value))
                elif column["type"] == "series":
                    value = ", ".join(f"{v:g}" for v in (value or [])[-column["length"]:])
                elif column["type"] == "node":
                    value = str(value)
                row.append(value)
            rows.append(row)
        return rows


class ClusterNeighbours:
    """Held-out rows of a cluster, nearest first in the model's own encoding. The reference rows are typed,
    assigned and encoded once, not on every click."""

    def __init__(self, model):
        self.model = model
        reference = pd.DataFrame.from_records(SETTINGS.get("reference") or [])
        self.rows = reference if reference.empty else typed_frame(
            reference[[c["name"] for c in SCHEMA["columns"]]], SCHEMA["columns"])
        self.clusters = np.asarray(model.predict(self.rows)).astype(str) if len(self.rows) else np.array([])
        self.encode = model[:-1].transform if hasattr(model, "steps") else None
        self.encoded = _dense(self.encode(self.rows)) if self.encode is not None and len(self.rows) else None

    def nearest(self, frame: pd.DataFrame, cluster: Any, limit: int = 5) -> pd.DataFrame:
        if self.rows.empty:
            return self.rows
        same = self.clusters == str(cluster)
        if not same.any() or self.encoded is None:
            return self.rows[same].head(limit)
        distance = np.linalg.norm(self.encoded[same] - _dense(self.encode(frame)), axis=1)
        return self.rows[same].iloc[np.argsort(distance)[:limit]]


def _dense(x) -> np.ndarray:
    return x.toarray() if hasattr(x, "toarray") else np.asarray(x, dtype=float)


def build_demo(model=None) -> gr.Blocks:
    model = model or load_model()
    columns = SCHEMA["columns"]
    form = Form(columns, model)
    neighbours = ClusterNeighbours(model) if TASK == "tabular_clustering" else None
    target = SCHEMA.get("target") or "prediction"

    def predict(*values):
        frame = form.frame(values)
        try:
            prediction = model.predict(frame)
        except ValueError as exc:  # an input the model cannot take (an unknown node id, ...): say so on the page
            raise gr.Error(str(exc)) from None
        value = prediction.tolist()[0] if hasattr(prediction, "tolist") else list(prediction)[0]
        if TASK == "time_series_forecasting":
            history = frame.iloc[0][columns[0]["name"]]
            error = SETTINGS.get("typical_error")
            headline = (f"### next {len(value)} steps of {target}: {value[0]:.4g} → {value[-1]:.4g}"
                        f"  \nmean {float(np.mean(value)):.4g}, range {min(value):.4g} to {max(value):.4g}"
                        + (f"; typically within ±{error:.4g} per step on the held-out period" if error is not None else ""))
            return (headline, ", ".join(f"{v:.4g}" for v in value),
                    history_figure(list(history), list(value), name=target))
        if SCHEMA.get("classes"):
            headline = f"### {target}: **{value}**"
            if not hasattr(model, "predict_proba"):  # a margin classifier (linear SVM): a class, no probabilities
                return headline
            proba = {str(c): float(p) for c, p in zip(model.classes_, np.asarray(model.predict_proba(frame))[0])}
            likeliest = max(proba, key=proba.get)
            if likeliest != str(value) and CARD.get("threshold") is not None:
                headline += (f"  \n{value!s} is predicted from a probability of {proba.get(str(value), 0):.0%}: the "
                             f"model's decision threshold for {CARD.get('positive_label')!s} is {CARD['threshold']:.2f}, "
                             f"tuned for {CARD.get('metric') or 'its metric'} on validation folds.")
            return headline, proba
        if TASK == "tabular_clustering":
            return f"### cluster {value}", neighbours.nearest(frame, value)
        error = SETTINGS.get("typical_error")
        spread = f"  \nTypically within ±{error:.4g} (mean absolute error on held-out rows)." if error is not None else ""
        return f"### {target}: {value:.6g}{spread}"

    title = SETTINGS.get("title", "automl-agent model")
    with gr.Blocks(title=title) as demo:
        gr.Markdown(f"# {title}\n{SETTINGS.get('description', '')}")
        with gr.Accordion("Model card", open=True):
            gr.Markdown(card_markdown())
        with gr.Row(equal_height=False):
            with gr.Column(scale=3):
                if len(columns) > 8:  # a long table: two columns of inputs instead of one long strip
                    with gr.Row():
                        halves = [columns[: (len(columns) + 1) // 2], columns[(len(columns) + 1) // 2:]]
                        fields = []
                        for half in halves:
                            with gr.Column(min_width=200):
                                fields += [form.field(c) for c in half]
                else:
                    fields = [form.field(c) for c in columns]
                button = gr.Button("Predict", variant="primary")
            with gr.Column(scale=2):
                if TASK == "time_series_forecasting":
                    outputs = [gr.Markdown(label="forecast"),
                               gr.Textbox(label=f"forecast of {target}, next {SCHEMA.get('horizon', '?')} steps", lines=3),
                               gr.Plot(label="history and forecast")]
                elif SCHEMA.get("classes"):
                    outputs = [gr.Markdown(label="predicted class")]
                    if hasattr(model, "predict_proba"):
                        outputs.append(gr.Label(label="class probabilities", num_top_classes=10, show_heading=False))
                elif TASK == "tabular_clustering":
                    outputs = [gr.Markdown(label="cluster"), gr.Dataframe(label="nearest held-out rows in this cluster",
                                                                           interactive=False, max_height=260)]
                else:
                    outputs = [gr.Markdown(label=target)]
        examples = form.example_rows()
        if examples:
            truth = SETTINGS.get("example_truth") or []
            label = f"{UNIT.capitalize()} the model never saw in training" + (
                f" (actual {target}: {', '.join(map(str, truth))})" if truth else "") + ": click one to fill the form"
            gr.Examples(examples=examples, inputs=fields, label=label, examples_per_page=10)
        button.click(predict, inputs=fields, outputs=outputs, api_name="predict")

        def first_look(*values):
            """The page opens with the form's first row already predicted, so the outputs are never blank."""
            try:
                return predict(*values)
            except gr.Error:
                return (None,) * len(outputs) if len(outputs) > 1 else None

        demo.load(first_look, inputs=fields, outputs=outputs, api_visibility="private")
    return demo


def launch(host: str = "127.0.0.1", port: int = 7860) -> None:
    build_demo().launch(server_name=host, server_port=port, allowed_paths=[str(HERE / "demo_examples")],
                        theme=gr.themes.Soft(), css=CSS, footer_links=["api"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Gradio demo of an automl-agent model")
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    args = parser.parse_args()
    launch(args.host, args.port)
