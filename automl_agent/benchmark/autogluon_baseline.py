"""AutoGluon as a bench baseline (`bench --baseline autogluon`): TabularPredictor with the `medium_quality` preset,
the run's own time budget and split, threshold calibration when F1 is asked, scored by the same scorer as FLAML.

AutoGluon runs in its own interpreter (`make autogluon` builds .venv-autogluon; AUTOML_AGENT_AUTOGLUON_PYTHON
names another), because it pins pandas below the version automl-agent uses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from pathlib import Path

import pandas as pd

from ..config import current_settings
from ..errors import UserFacingError

PYTHON_VARIABLE = "AUTOML_AGENT_AUTOGLUON_PYTHON"
DEFAULT_ENVIRONMENT = Path(".venv-autogluon")
PRESETS = "medium_quality"
NAME = f"AutoGluon {PRESETS}"
CHILD = Path(__file__).with_name("autogluon_child.py")
# AutoGluon's names for the metrics the agent reports (losses are minimised by AutoGluon itself)
METRICS = {"f1": "f1", "accuracy": "accuracy", "rmse": "root_mean_squared_error", "mse": "mean_squared_error",
           "mae": "mean_absolute_error", "r2": "r2", "mape": "mean_absolute_percentage_error",
           "rmsle": "root_mean_squared_error"}  # AutoGluon has no RMSLE scorer: RMSE on log1p(target) instead


def autogluon_python() -> Path:
    """The interpreter that has autogluon.tabular, or a clear error that says how to get one."""
    named = current_settings().autogluon_python
    python = Path(named) if named else DEFAULT_ENVIRONMENT / "bin" / "python"
    if not python.exists():
        where = f"{PYTHON_VARIABLE}={named}" if named else f"{python} (the default place)"
        raise UserFacingError(
            f"The AutoGluon baseline needs its own Python environment, and there is none at {where}.",
            "Run `make autogluon` in the automl-agent checkout (about 2 GB: AutoGluon 1.6.3 pins pandas below the "
            f"version automl-agent uses), or set {PYTHON_VARIABLE} to a Python that has autogluon.tabular.")
    return python.absolute()


def fit_and_predict(task: str, metric: str, X: pd.DataFrame, y: pd.Series, train, test, budget_s: float,
                    positive_label=None) -> pd.Series:
    """AutoGluon's predictions for the test rows, fitted on the training rows in a child process that is stopped
    (with everything it started) when it overruns three times its budget."""
    python = autogluon_python()
    classification = task != "tabular_regression"
    label = "__label__"
    problem_type = "regression" if not classification else ("binary" if y.loc[train].nunique() == 2 else "multiclass")
    eval_metric = METRICS.get(metric, "accuracy" if classification else "root_mean_squared_error")
    if eval_metric == "f1" and problem_type == "multiclass":
        eval_metric = "f1_macro"
    with tempfile.TemporaryDirectory(prefix="automl-agent-autogluon-") as tmp:
        folder = Path(tmp)
        train_rows = X.loc[train].assign(**{label: y.loc[train].astype(str) if classification else y.loc[train]})
        train_rows.to_csv(folder / "train.csv", index=False)
        X.loc[test].to_csv(folder / "test.csv", index=False)
        (folder / "spec.json").write_text(json.dumps({
            "label": label, "problem_type": problem_type, "eval_metric": eval_metric, "presets": PRESETS,
            "time_limit": budget_s, "calibrate_threshold": problem_type == "binary" and metric == "f1",
            "log_target": metric == "rmsle" and bool((y.loc[train] >= 0).all()),
            "positive_class": None if positive_label is None or problem_type != "binary" else str(positive_label)}))
        _run_child(python, folder, timeout_s=3 * budget_s + 120)
        predictions = pd.read_csv(folder / "predictions.csv")["prediction"]
    if classification:
        as_text = {str(v): v for v in y.loc[train].unique()}
        return pd.Series([as_text.get(str(v), v) for v in predictions], index=X.loc[test].index)
    return pd.Series(predictions.to_numpy(dtype=float), index=X.loc[test].index)


def _run_child(python: Path, folder: Path, timeout_s: float) -> None:
    log = folder / "autogluon.log"
    with log.open("wb") as out:
        child = subprocess.Popen([str(python), str(CHILD), str(folder)], stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
        try:
            code = child.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            code = None
        finally:  # whatever AutoGluon started in its session goes with it
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            child.wait()
    if code is None:
        raise RuntimeError(f"AutoGluon ran past {timeout_s:.0f} s and was stopped")
    if code != 0:
        raise RuntimeError(f"AutoGluon failed (exit {code}): {log.read_text(errors='replace')[-800:]}")
