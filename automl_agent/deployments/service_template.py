"""BentoML service for a model delivered by automl-agent (copied into each bento; reads its settings beside it)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import bentoml
import pandas as pd
from bentoml.exceptions import InvalidArgument

from automl_agent.deployments.frames import typed_frame
from automl_agent.graph_model import UnknownNodeError

HERE = Path(__file__).resolve().parent
SETTINGS = json.loads((HERE / "bento_config.json").read_text())
SCHEMA = json.loads((HERE / "schema.json").read_text())
COLUMNS = {c["name"]: c for c in SCHEMA["columns"]}
MAX_RECORDS = 10_000


def validate(records: Any) -> pd.DataFrame:
    """Records in the training columns' schema; anything else is a 400 that says what is wrong."""
    if not isinstance(records, list) or not records:
        raise InvalidArgument("'records' must be a non-empty list of objects, one per row")
    if len(records) > MAX_RECORDS:
        raise InvalidArgument(f"at most {MAX_RECORDS} records per request; got {len(records)}")
    for i, record in enumerate(records):
        if not isinstance(record, dict):
            raise InvalidArgument(f"record {i} is not an object with column names as keys")
        missing = [name for name in COLUMNS if name not in record]
        unknown = [name for name in record if name not in COLUMNS and name != SCHEMA.get("target")]
        if missing:
            raise InvalidArgument(f"record {i} lacks columns {missing}; expected columns: {list(COLUMNS)}")
        if unknown:
            raise InvalidArgument(f"record {i} has unknown columns {unknown}; expected columns: {list(COLUMNS)}")
        for name, column in COLUMNS.items():
            value = record[name]
            if column["type"] == "number" and value is not None:
                if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isinf(value):
                    raise InvalidArgument(f"record {i}: column {name!r} must be a number (or null), got {value!r}")
            if column["type"] == "node" and (isinstance(value, bool) or not isinstance(value, (str, int)) or value == ""):
                raise InvalidArgument(f"record {i}: column {name!r} must be a node id (a string or an integer), "
                                      f"e.g. {column['examples'][0]!r}; got {value!r}")
            if column["type"] == "image" and not (isinstance(value, str) and len(value) > 16):
                raise InvalidArgument(f"record {i}: column {name!r} must be a base64-encoded PNG or JPEG image")
            if column["type"] == "series":
                if not isinstance(value, list) or len(value) < column["length"] or not all(
                        v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isinf(v))
                        for v in value):
                    raise InvalidArgument(f"record {i}: column {name!r} must be a list of at least {column['length']} "
                                          f"numbers (the most recent last), got {str(value)[:80]}")
    frame = typed_frame(pd.DataFrame.from_records(records, columns=list(COLUMNS)), SCHEMA["columns"])
    for name, column in COLUMNS.items():
        if column["type"] == "number":
            continue
        if column["type"] == "series":
            frame[name] = frame[name].map(lambda v: [float("nan") if x is None else float(x) for x in v[-column["length"]:]])
        else:
            frame[name] = frame[name].map(lambda v: None if v is None else str(v)).astype(object)
    return frame


@bentoml.service(name=SETTINGS["service_name"], traffic={"timeout": 60}, workers=1)
class DeliveredModel:
    bento_model = bentoml.models.BentoModel(SETTINGS["bento_model_tag"])

    def __init__(self) -> None:
        # validate() above is the schema check (clearer messages, nulls allowed in numbers): the model itself answers
        self.model = bentoml.mlflow.load_model(self.bento_model).get_raw_model()

    @bentoml.api
    def predict(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        frame = validate(records)
        try:
            predictions = self.model.predict(frame)
        except UnknownNodeError as exc:  # a node id the graph does not have
            raise InvalidArgument(str(exc)) from exc
        values = predictions.tolist() if hasattr(predictions, "tolist") else list(predictions)
        return {"predictions": values, "task": SCHEMA["task"], "model": SETTINGS["registered_model"]}

    @bentoml.api
    def schema(self) -> dict[str, Any]:
        return {"columns": SCHEMA["columns"], "task": SCHEMA["task"], "classes": SCHEMA.get("classes"),
                "example": SCHEMA.get("example")}
