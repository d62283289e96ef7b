"""Time-series forecasting: windows from the instruction, the time column found in the data, the forecasters."""

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.brains.offline import infer_task
from automl_agent.agents.understanding.windows import requested_windows
from automl_agent.agents.contracts import TaskType
from automl_agent.data.profile import profile_table
from automl_agent.trainkit.runtime import WindowForecaster
from tests.conftest import DATASETS
from tests.spoiled_spec import cross_checked


@pytest.mark.parametrize("instruction, windows", [
    ("Forecast OT (INPUT_SEQ_LEN=96, PRED_SEQ_LEN=24)", (96, 24)),
    ("Forecast the next 48 half-hours of demand from the last 336", (336, 48)),
    ("Forecast sales 7 days ahead", (None, 7)),
    ("Forecast the oil temperature", (None, None)),
])
def test_windows_come_from_the_instruction(instruction, windows):
    assert requested_windows(instruction) == windows


@pytest.fixture(scope="module")
def ett():
    return pd.read_csv(DATASETS / "ETTh1.csv").head(800)


def test_a_dated_series_with_forecast_words_is_a_forecasting_task(ett):
    profile = profile_table(ett, "ETTh1.csv")
    assert profile.column("date").kind == "datetime"
    assert infer_task("Forecast the oil temperature OT", profile, "OT") == TaskType.time_series_forecasting
    assert infer_task("Predict OT from the loads", profile, "OT") == TaskType.tabular_regression


def test_cross_check_restores_the_windows_the_instruction_gives(ett):
    def spoil(problem):
        problem.pred_seq_len, problem.input_seq_len = 12, None

    fixed, notes = cross_checked(ett, "ETTh1.csv", "Forecast OT for the next 24 hours from the last 96 hours", spoil)
    assert (fixed.problem.input_seq_len, fixed.problem.pred_seq_len) == (96, 24)
    assert any("pred_seq_len set to 24" in n for n in notes)


@pytest.mark.parametrize("kind", ["last_value", "seasonal_naive", "linear", "dlinear"])
def test_forecasters_map_a_history_to_the_horizon(kind):
    t = np.arange(1500)
    series = 10 + np.sin(2 * np.pi * t / 24) + 0.002 * t
    X = np.stack([series[i:i + 48] for i in range(1400)])
    Y = np.stack([series[i + 48:i + 60] for i in range(1400)])
    model = WindowForecaster(kind=kind, input_len=48, horizon=12, season=24).fit(X[:1200], Y[:1200])
    served = model.predict(pd.DataFrame({"history": [list(row) for row in X[1200:]]}))
    assert served.shape == (200, 12)
    error = np.abs(served - Y[1200:]).mean()
    assert error < {"last_value": 1.0, "seasonal_naive": 0.1, "linear": 0.01, "dlinear": 0.01}[kind]
    with pytest.raises(ValueError, match="at least 48 values"):
        model.predict(pd.DataFrame({"history": [[1.0, 2.0]]}))
