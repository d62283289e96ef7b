"""The reference a served model is watched against: a sample of its training rows in the monitored view, with the
model's own predictions on them. Written beside the run, logged to the MLflow run (so that a bento built later
from the registry carries it too) and packed into the bento."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..trainkit.splits import read_split
from .view import PREDICTION, monitored_row, prediction_value

REFERENCE_FILE = "reference.parquet"
ARTIFACT_PATH = "monitoring"
MAX_ROWS = 5000
MAX_IMAGE_ROWS = 500  # each image is read and encoded as the served requests are
UNSUPPORTED = {"time_series_forecasting": "a forecast model's inputs are windows of one series, not rows; its drift "
                                          "is not measured yet"}


def build_reference(model: Any, task: str, data_path: str, attempt: Path, schema: dict[str, Any],
                    seed: int = 0) -> pd.DataFrame:
    """Raises ValueError for a task whose drift is not measured."""
    if task in UNSUPPORTED:
        raise ValueError(UNSUPPORTED[task])
    split = read_split(attempt / "split.json")
    rng = np.random.default_rng(seed)
    train = np.asarray(split["train_index"])
    limit = MAX_IMAGE_ROWS if task == "image_classification" else MAX_ROWS
    if len(train) > limit:
        train = np.sort(rng.choice(train, limit, replace=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if task == "node_classification":
            records, predictions = _nodes(model, Path(data_path), split, train)
        else:
            records, predictions = _rows(model, task, Path(data_path), split, train)
    rows = [{**monitored_row(record, schema), PREDICTION: prediction_value(p, task)}
            for record, p in zip(records, predictions)]
    return pd.DataFrame(rows)


def _rows(model, task: str, data_path: Path, split: dict, train: np.ndarray):
    from ..data.io import read_as_the_scripts_do

    frame = read_as_the_scripts_do(data_path)
    X = frame.loc[pd.Index(train), split["features"]]
    if task == "image_classification":
        from ..reporting.evidence import images_as_base64

        X = images_as_base64(X, data_path.parent)
    records = json.loads(X.to_json(orient="records"))
    return records, list(np.asarray(model.predict(X)))


def _nodes(model, data_path: Path, split: dict, train: np.ndarray):
    from ..data.graph import load_graph

    graph = load_graph(data_path, target=split["target"], node_column=split["features"][0])
    nodes = np.asarray(graph.node_ids)[train]
    return [{split["features"][0]: str(n)} for n in nodes], list(model.predict(nodes))


def write_reference(frame: pd.DataFrame, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / REFERENCE_FILE
    _plain_types(frame).to_parquet(path, index=False)
    return path


def _plain_types(frame: pd.DataFrame) -> pd.DataFrame:
    """Object columns of mixed values (a category with numbers among its labels) as text, so Parquet takes them."""
    frame = frame.copy()
    for name in frame.columns:
        if frame[name].dtype == object:
            frame[name] = frame[name].map(lambda v: None if v is None else str(v))
    return frame


def registered_reference(tracking_uri: str, name: str, version: str, folder: Path) -> Path | None:
    """The reference logged with a registered version's run, downloaded into `folder`; None when that run has none
    (a version registered before references were kept)."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri)
    run_id = client.get_model_version(name, version).run_id
    if not run_id:
        return None
    try:
        downloaded = client.download_artifacts(run_id, f"{ARTIFACT_PATH}/{REFERENCE_FILE}", str(folder))
    except Exception:  # noqa: BLE001 - an absent artifact is an MlflowException or an OSError, by store
        return None
    return Path(downloaded)
