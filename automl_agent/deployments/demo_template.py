"""Gradio demo for a model delivered by automl-agent.

Run it with `automl-agent demo RUN_ID` or `python demo.py [--port 7860]`. It loads the registered model version
from the MLflow store recorded in demo_config.json beside this file.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import gradio as gr
import mlflow
import pandas as pd

from automl_agent.deployments.frames import typed_frame

HERE = Path(__file__).resolve().parent
SETTINGS = json.loads((HERE / "demo_config.json").read_text())
SCHEMA = SETTINGS["schema"]


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


def build_demo(model=None) -> gr.Blocks:
    model = model or load_model()
    columns = SCHEMA["columns"]
    example = (SCHEMA.get("example") or [{}])[0]

    def predict(*values):
        frame = pd.DataFrame([dict(zip([c["name"] for c in columns], values))])
        frame = typed_frame(frame, columns)
        for column in columns:
            if column["type"] == "image":
                import base64

                path = frame.at[0, column["name"]]
                if not path:
                    raise gr.Error("upload an image first")
                with open(path, "rb") as handle:
                    frame[column["name"]] = [base64.b64encode(handle.read()).decode()]
            if column["type"] == "series":
                values = [float(v) for v in str(frame.at[0, column["name"]]).replace("\n", ",").split(",") if v.strip()]
                if len(values) < column["length"]:
                    raise gr.Error(f"{column['name']} needs at least {column['length']} numbers; got {len(values)}")
                frame[column["name"]] = [values[-column["length"]:]]
        try:
            prediction = model.predict(frame)
        except ValueError as exc:  # an input the model cannot take (an unknown node id, ...): say so on the page
            raise gr.Error(str(exc)) from None
        value = prediction.tolist()[0] if hasattr(prediction, "tolist") else list(prediction)[0]
        if isinstance(value, list):  # a forecast: the next values, one per step
            return ", ".join(f"{v:.4g}" for v in value)
        return str(value)

    def field(column):
        default = example.get(column["name"])
        if column["type"] == "number":
            return gr.Number(label=column["name"], value=default if default is not None else column.get("median"))
        if column["type"] == "image":
            return gr.Image(label=column["name"], type="filepath")
        if column["type"] == "series":
            shown = ", ".join(f"{v:g}" for v in (default or [])[-column["length"]:])
            box = gr.Textbox(label=f"{column['name']}: the last {column['length']} values, oldest first",
                             value=shown, lines=4, placeholder="comma-separated numbers, or upload a file below")
            upload = gr.UploadButton(f"Upload a CSV of {column['name']} values", file_types=[".csv", ".txt"], size="sm")
            upload.upload(lambda path, name=column["name"]: series_from_file(path, name), inputs=upload, outputs=box,
                          api_name=f"upload_{column['name']}")
            return box
        if column["type"] == "node":
            examples = ", ".join(str(v) for v in column.get("examples", [])[:3])
            return gr.Textbox(label=f"{column['name']}: a node id of the graph ({column.get('n_nodes', '?')} nodes, "
                                    f"e.g. {examples})", value=str(default or ""))
        if column["type"] == "text":
            return gr.Textbox(label=column["name"], value=default or "", lines=4, placeholder="type or paste a text")
        return gr.Dropdown(choices=column["levels"], label=column["name"], allow_custom_value=True,
                           value=default if default is not None else column.get("mode"))

    title = SETTINGS.get("title", "automl-agent model")
    with gr.Blocks(title=title) as demo:
        gr.Markdown(f"# {title}\n{SETTINGS.get('description', '')}")
        with gr.Row():
            with gr.Column():
                fields = [field(column) for column in columns]
            with gr.Column():
                output = gr.Textbox(label=SETTINGS.get("output_label", "prediction"))
                button = gr.Button("Predict", variant="primary")
        button.click(predict, inputs=fields, outputs=output, api_name="predict")
    return demo


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Gradio demo of an automl-agent model")
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    args = parser.parse_args()
    build_demo().launch(server_name=args.host, server_port=args.port)
