"""The runs the end-to-end tests share, made once per test worker (session scope): the churn run whose workspace
and Prefect server every other run reuses, and one run of each other task type."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.runs import CLI, INSTRUCTION, run_in_workspace


@pytest.fixture(scope="session")
def churn_export(tmp_path_factory, churn_frame) -> Path:
    """The churn table as a spreadsheet in much of Europe saves it: ';' between fields, a decimal comma, Windows-1252
    text (one accented label). The run, the bento and the demo must all read it through the run's snapshot."""
    frame = churn_frame.assign(payment_method=churn_frame.payment_method.replace({"Mailed check": "Mailed chèque"}))
    path = tmp_path_factory.mktemp("export") / "churn.csv"
    frame.to_csv(path, sep=";", decimal=",", index=False, encoding="cp1252")
    return path


@pytest.fixture(scope="session")
def churn_run(tmp_path_factory, churn_export):
    churn_csv = churn_export
    workdir = tmp_path_factory.mktemp("e2e")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_", "BENTOML_", "AUTOML_AGENT_"))}
    env["AUTOML_AGENT_HOME"] = str(tmp_path_factory.mktemp("user-home"))  # the user's one Prefect server lives here
    proc = subprocess.run([*CLI, "--workdir", str(workdir), "run", INSTRUCTION, "--data", str(churn_csv), "--budget", "10",
                           "--json"], capture_output=True, text=True, timeout=600, env=env)
    yield workdir, proc, env
    subprocess.run([*CLI, "--workdir", str(workdir), "server", "stop"], capture_output=True, text=True, timeout=60, env=env)


@pytest.fixture(scope="session")
def forecast_run(tmp_path_factory, churn_run):
    """A forecasting run on the first 3,000 hours of ETTh1."""
    data = tmp_path_factory.mktemp("ts") / "etth1.csv"
    import pandas as pd

    from tests.conftest import DATASETS

    pd.read_csv(DATASETS / "ETTh1.csv").head(3000).to_csv(data, index=False)
    return run_in_workspace(churn_run, "Forecast OT for the next 24 hours from the last 96 hours; RMSLE at most 0.6.",
                             data, budget=8)


@pytest.fixture(scope="session")
def image_run(tmp_path_factory, churn_run):
    """An image classification run on scikit-learn's digits written out as PNG files and labels.csv."""
    from automl_agent.data.library_datasets import image_folder

    labels = image_folder("digits", tmp_path_factory.mktemp("images"))
    return run_in_workspace(churn_run, "Recognise the digit in each image; accuracy at least 0.85.", labels, budget=12)



@pytest.fixture(scope="session")
def graph_run(tmp_path_factory, churn_run):
    """Node classification on Zachary's karate club given as nodes.csv + edges.csv (no node features)."""
    from automl_agent.data.library_datasets import graph_folder

    folder = graph_folder("karate", tmp_path_factory.mktemp("graph"))
    return run_in_workspace(churn_run, "Predict the community of each club member from the friendship graph.", folder,
                             budget=8)



@pytest.fixture(scope="session")
def text_run(tmp_path_factory, churn_run):
    from tests.conftest import DATASETS
    import pandas as pd

    data = tmp_path_factory.mktemp("text") / "sms.csv"
    pd.read_csv(DATASETS / "sms_spam.csv").sample(1500, random_state=0).to_csv(data, index=False)
    return run_in_workspace(churn_run, "flag the spam texts", data, budget=4)


@pytest.fixture(scope="session")
def regression_run(churn_run):
    from tests.conftest import DATASETS

    return run_in_workspace(churn_run, "how strong will the concrete be? predict compressive strength",
                             DATASETS / "concrete.csv", budget=4)


@pytest.fixture(scope="session")
def clustering_run(churn_run):
    from tests.conftest import DATASETS

    return run_in_workspace(churn_run, "group these penguins into clusters of similar birds", DATASETS / "penguins.csv",
                             budget=4)

