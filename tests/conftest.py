"""Shared fixtures: offline, deterministic, servers on 127.0.0.1 only."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

for key, value in {"PREFECT_SERVER_ANALYTICS_ENABLED": "false", "GRADIO_ANALYTICS_ENABLED": "False",
                   "BENTOML_DO_NOT_TRACK": "true", "HF_HUB_OFFLINE": "1",
                   "AUTOML_AGENT_RETRIEVAL": "none", "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "false"}.items():
    os.environ.setdefault(key, value)

DATASETS = Path(__file__).resolve().parents[1] / "automl_agent" / "datasets"
# seconds per test file, measured (benchmarks/test_file_seconds.py): `make test` gives whole files to its workers in
# collection order, so the longest go first and none of them starts while the other workers are nearly done
FILE_SECONDS: dict[str, int] = json.loads(Path(__file__).with_name("file_seconds.json").read_text())


def pytest_collection_modifyitems(config, items):
    position = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda item: (-FILE_SECONDS.get(item.nodeid.split("::")[0], 0), position[id(item)]))


@pytest.fixture(scope="session")
def churn_csv() -> Path:
    return DATASETS / "churn.csv"


@pytest.fixture(scope="session")
def churn_frame(churn_csv) -> pd.DataFrame:
    return pd.read_csv(churn_csv)


def _write(tmp_path_factory, frame: pd.DataFrame, name: str) -> Path:
    path = tmp_path_factory.mktemp("data") / name
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="session")
def small_diamonds(tmp_path_factory) -> Path:
    return _write(tmp_path_factory, pd.read_csv(DATASETS / "diamonds.csv").sample(3000, random_state=0), "diamonds.csv")


@pytest.fixture(scope="session")
def wine_csv(tmp_path_factory) -> Path:
    from sklearn.datasets import load_wine

    bunch = load_wine(as_frame=True)
    frame = bunch.frame.rename(columns={"target": "cultivar"})
    frame["cultivar"] = frame["cultivar"].map({0: "class_0", 1: "class_1", 2: "class_2"})
    return _write(tmp_path_factory, frame, "wine.csv")


@pytest.fixture(scope="session")
def small_churn(tmp_path_factory) -> Path:
    """1500 rows of the Telco churn table: enough to learn, small enough for slow brains."""
    return _write(tmp_path_factory, pd.read_csv(DATASETS / "churn.csv").sample(1500, random_state=0), "churn_small.csv")


@pytest.fixture(scope="session")
def small_sms(tmp_path_factory) -> Path:
    """1200 messages of the SMS Spam Collection (label, message)."""
    return _write(tmp_path_factory, pd.read_csv(DATASETS / "sms_spam.csv").sample(1200, random_state=0), "sms.csv")


@pytest.fixture(autouse=True)
def _no_tracking_uri_leaks():
    """A test that leaves MLFLOW_TRACKING_URI behind sends every later run of the session to its store."""
    before = os.environ.get("MLFLOW_TRACKING_URI")
    yield
    after = os.environ.get("MLFLOW_TRACKING_URI")
    assert after == before, f"the test left MLFLOW_TRACKING_URI={after!r} (was {before!r})"
