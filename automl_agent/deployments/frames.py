"""Records in the training table's own dtypes, for the registered signature, the bento and the demo alike.

An integer column of the training table is declared `long` in the MLflow signature, so a registry consumer who
reads the very CSV the model was trained on (pandas gives int64) passes MLflow's schema check. Served records
come as JSON numbers (and may be null): integral values of an integer column become int64, anything else float64,
and the bento and the demo call the model itself after their own validation."""

from __future__ import annotations

from typing import Any

import pandas as pd


def typed_frame(frame: pd.DataFrame, columns: list[dict[str, Any]]) -> pd.DataFrame:
    frame = frame.copy()
    for column in columns:
        if column["type"] != "number":
            continue
        values = pd.to_numeric(frame[column["name"]], errors="coerce").astype("float64")
        integral = values.notna().all() and bool((values == values.round()).all())
        frame[column["name"]] = values.astype("int64") if column.get("integer") and integral else values
    return frame


def example_frame(schema: dict[str, Any]) -> pd.DataFrame:
    """The schema's example rows as the training table held them: the model's input example and signature."""
    names = [c["name"] for c in schema["columns"]]
    return typed_frame(pd.DataFrame.from_records(schema["example"], columns=names), schema["columns"])


def describe_version(schema: dict[str, Any], spec_summary: dict[str, Any]) -> str:
    """The registered model version's description: what it does, how good it is, and how to call it."""
    lines = [f"**{spec_summary['task'].replace('_', ' ')}** of `{schema.get('target') or '-'}` from "
             f"`{spec_summary['data']}`, trained by automl-agent run `{spec_summary['run_id']}`.", "",
             "| metric (held-out test) | value |", "|---|---|"]
    lines += [f"| {k} | {v:.4g} |" for k, v in spec_summary["metrics"].items()]
    if spec_summary["constraints"]:
        lines += ["", "Constraints: " + "; ".join(
            f"{c['name']} {c['op']} {c['target']:g}: measured {c['measured']} ({'met' if c['satisfied'] else 'NOT met'})"
            for c in spec_summary["constraints"])]
    columns = ", ".join(f"`{c['name']}` ({c['type']})" for c in schema["columns"][:30])
    lines += ["", f"Input columns: {columns}" + (" ..." if len(schema["columns"]) > 30 else ""), "",
              "Call it:", "```python",
              "import mlflow, pandas as pd",
              f"model = mlflow.pyfunc.load_model('models:/{spec_summary['name']}@champion')",
              "model.predict(pd.read_csv('rows.csv'))  # the training table's columns and dtypes",
              "```",
              f"or `automl-agent serve models:/{spec_summary['name']}@champion`, then POST /predict "
              '`{"records": [{column: value, ...}]}`.']
    return "\n".join(lines)
