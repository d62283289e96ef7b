"""Records in the training table's own dtypes, for the registered signature, the bento and the demo alike.

A numeric column is declared `any` in the MLflow signature: pandas gives int64 for an integer column read from a
CSV, float64 as soon as one value is blank, and int64 again for a hand-made frame of whole numbers in a float
column; MLflow's `long` and `double` each refuse one of those, and the model's own imputer handles the blanks.
Served records come as JSON numbers (and may be null): integral values of an integer column become int64,
anything else float64, and the bento and the demo call the model itself after their own validation."""

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


def optional_columns(schema: dict[str, Any]) -> list[str]:
    """The columns a caller may leave out: the model saw them blank in training (`tabular_schema` marks them)."""
    return [c["name"] for c in schema.get("columns", []) if c.get("optional")]


def consumer_signature(example: pd.DataFrame, schema: dict[str, Any]):
    """The registered signature: columns and kinds as inferred from the example, numeric columns as `any`, the
    columns the model can do without as optional."""
    from mlflow.models import ModelSignature, infer_signature
    from mlflow.types.schema import AnyType, ColSpec, Schema

    inferred = infer_signature(example)
    numeric = {c["name"] for c in schema["columns"] if c["type"] == "number"}
    optional = set(optional_columns(schema))
    inputs = [ColSpec(AnyType() if spec.name in numeric else spec.type, spec.name,
                      required=spec.required and spec.name not in optional)
              for spec in inferred.inputs.inputs]
    return ModelSignature(inputs=Schema(inputs), outputs=inferred.outputs)


def as_registered(model: Any, schema: dict[str, Any]) -> Any:
    """The model as the registry holds it: a tabular model with columns it can do without takes frames that leave
    them out (`ColumnsAsTrained`); any other model as it is."""
    optional = optional_columns(schema)
    if not optional or not all(c["type"] in ("number", "category", "text") for c in schema["columns"]):
        return model
    from ..trainkit.runtime import ColumnsAsTrained

    return ColumnsAsTrained(model, [c["name"] for c in schema["columns"]], optional)


def describe_version(schema: dict[str, Any], spec_summary: dict[str, Any]) -> str:
    """The registered model version's description: what it does, how good it is, and how to call it (this version
    when its number is known, the champion otherwise)."""
    uri = (f"models:/{spec_summary['name']}/{spec_summary['version']}" if "version" in spec_summary
           else f"models:/{spec_summary['name']}@champion")
    lines = [f"**{spec_summary['task'].replace('_', ' ')}** of `{schema.get('target') or '-'}` from "
             f"`{spec_summary['data']}`, trained by automl-agent run `{spec_summary['run_id']}`.", ""]
    if spec_summary.get("standing"):
        lines += [f"Registered as {spec_summary['standing']}", ""]
    lines += ["| metric (held-out test) | value |", "|---|---|"]
    lines += [f"| {k} | {v:.4g} |" for k, v in spec_summary["metrics"].items()]
    if spec_summary["constraints"]:
        lines += ["", "Constraints: " + "; ".join(
            f"{c['name']} {c['op']} {c['target']:g}: measured {c['measured']} ({'met' if c['satisfied'] else 'NOT met'})"
            for c in spec_summary["constraints"])]
    columns = ", ".join(f"`{c['name']}` ({c['type']})" for c in schema["columns"][:30])
    lines += ["", f"Input columns: {columns}" + (" ..." if len(schema["columns"]) > 30 else ""), "",
              "Call it:", "```python",
              "import mlflow, pandas as pd",
              f"model = mlflow.pyfunc.load_model('{uri}')",
              "model.predict(pd.read_csv('rows.csv'))  # the training table's columns; blanks are fine",
              *([f"# it can do without {', '.join(optional_columns(schema)[:20])}: leave them out if unknown"]
                if optional_columns(schema) else []),
              "```",
              f"or `automl-agent serve {uri}`, then POST /predict "
              '`{"records": [{column: value, ...}]}`.']
    if "version" in spec_summary:
        lines += ["", f"`models:/{spec_summary['name']}@champion` is whichever version holds the alias now "
                      f"(`automl-agent models list {spec_summary['name']}`)."]
    return "\n".join(lines)
