"""Training script skeleton: time-series forecasting with fixed input and output windows.

The operation agent fills CONFIG. The script orders the series by time, cuts it into (history, future) windows,
splits them chronologically (the last 20 % of time is the test period; the end of the training period validates
the search), searches models and hyperparameters with Optuna within the time budget, refits the best on the whole
training period and writes model/model.joblib, model/schema.json, split.json and results.json.
Output lines: PROGRESS {json} per trial, RESULT {json} at the end.
"""

from __future__ import annotations

import json
import pickle
import sys
import time
import warnings
from pathlib import Path

import joblib
import numpy as np
import optuna
import pandas as pd
from sklearn import metrics as skm

from automl_agent.trainkit.evaluation import time_requests, write_results
from automl_agent.trainkit.runtime import WindowForecaster, ordered_series, series_windows
from automl_agent.trainkit.search import enqueue_defaults, progress_printer, suggest_candidate

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.WARNING)

CONFIG: dict = {}  # filled in by the operation agent

TASK = CONFIG["task"]
SEED = CONFIG.get("seed", 0)
MAX_TRAIN_WINDOWS = 20000
MAX_TEST_WINDOWS = 3000  # the benchmark's baseline thins its test windows to the same number


# ---------------------------------------------------------------- data
def load_series() -> tuple[np.ndarray, pd.Series]:
    path = Path(CONFIG["data_path"])
    frame = pd.read_parquet(path) if path.suffix.lower() in {".parquet", ".pq"} else pd.read_csv(path)
    frame.columns = [str(c).strip() for c in frame.columns]
    return ordered_series(frame, CONFIG["time_column"], CONFIG["target"])


def season_length(times: pd.Series) -> int:
    """The dominant cycle implied by the sampling step: a day for (sub-)hourly data, a week for daily, ..."""
    if not pd.api.types.is_datetime64_any_dtype(times):
        return 1  # step numbers with no calendar: no cycle to assume
    step = times.diff().median()
    if pd.isna(step) or step <= pd.Timedelta(0):
        return 1
    seconds = step.total_seconds()
    for period, cycle in ((86400, None), (7 * 86400, 7), (31 * 86400, 12)):
        if cycle is None and seconds < 86400:
            return max(1, int(round(86400 / seconds)))
        if cycle is not None and seconds <= period:
            return cycle
    return 1


def window_lengths(season: int) -> tuple[int, int]:
    horizon = CONFIG.get("pred_seq_len") or (season if 1 < season <= 96 else 12)
    history = CONFIG.get("input_seq_len") or min(max(4 * horizon, 2 * season, 24), 336)
    return int(history), int(horizon)


# ---------------------------------------------------------------- models and metrics
def make_model(key: str, params: dict, history: int, horizon: int, season: int) -> WindowForecaster:
    return WindowForecaster(kind=key, input_len=history, horizon=horizon, season=season,
                            alpha=params.get("alpha", 1.0), kernel=params.get("kernel", 25))


def forecast_metrics(truth: np.ndarray, predicted: np.ndarray) -> dict:
    t, p = truth.ravel(), predicted.ravel()
    out = {"rmse": float(np.sqrt(skm.mean_squared_error(t, p))), "mse": float(skm.mean_squared_error(t, p)), "mae": float(skm.mean_absolute_error(t, p)),
           "rmsle": float(np.sqrt(skm.mean_squared_log_error(np.clip(t, 0, None), np.clip(p, 0, None))))}
    if (np.abs(t) > 1e-9).all():
        out["mape"] = float(skm.mean_absolute_percentage_error(t, p))
    return out


def run_search(fit_data, val_data, history, horizon, season):
    candidates = CONFIG["candidates"]
    metric = CONFIG["metric"]

    def objective(trial: optuna.Trial) -> float:
        candidate, params = suggest_candidate(trial, candidates)
        key = candidate["model"]
        model = make_model(key, params, history, horizon, season).fit(*fit_data)
        score = forecast_metrics(val_data[1], model.predict(val_data[0])).get(metric)
        trial.set_user_attr("model_key", key)
        trial.set_user_attr("params", params)
        return score

    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=SEED))
    enqueue_defaults(study, candidates)
    started = time.perf_counter()
    study.optimize(objective, n_trials=CONFIG.get("max_trials", 200), timeout=CONFIG["hpo_budget_s"],
                   callbacks=[progress_printer(started)], catch=(ValueError, np.linalg.LinAlgError))
    return study, time.perf_counter() - started


# ---------------------------------------------------------------- main
def main() -> int:
    started = time.perf_counter()
    values, times = load_series()
    season = season_length(times)
    history, horizon = window_lengths(season)
    n = len(values)
    test_start = int(n * (1 - CONFIG.get("test_size", 0.2)))
    val_start = int(test_start * 0.85)
    if test_start - horizon <= history + horizon:
        print(f"the series has {n} points: too short for a history of {history} and a horizon of {horizon}", file=sys.stderr)
        return 2
    fit_data = series_windows(values, history, val_start, history, horizon, MAX_TRAIN_WINDOWS)
    val_data = series_windows(values, val_start, test_start, history, horizon, MAX_TEST_WINDOWS)
    train_data = series_windows(values, history, test_start, history, horizon, MAX_TRAIN_WINDOWS)
    test_data = series_windows(values, test_start, n, history, horizon, MAX_TEST_WINDOWS)
    Path("split.json").write_text(json.dumps({
        "target": CONFIG["target"], "time_column": CONFIG["time_column"], "test_start": test_start, "n": n,
        "input_seq_len": history, "pred_seq_len": horizon, "season": season}))

    study, hpo_seconds = run_search(fit_data, val_data, history, horizon, season)
    completed = [t for t in study.trials if t.value is not None]
    if not completed:
        print("no hyperparameter trial finished", file=sys.stderr)
        return 2
    best = study.best_trial
    key, params = best.user_attrs["model_key"], best.user_attrs["params"]
    t0 = time.perf_counter()
    model = make_model(key, params, history, horizon, season).fit(*train_data)
    train_seconds = time.perf_counter() - t0
    test_metrics = forecast_metrics(test_data[1], model.predict(test_data[0]))
    latency_ms, latency_p95_ms = time_requests(model.predict, [pd.DataFrame({"history": [list(map(float, row))]})
                                                               for row in test_data[0][:50]])

    out_dir = Path("model")
    out_dir.mkdir(exist_ok=True)
    joblib.dump(model, out_dir / "model.joblib")
    schema = {"task": TASK, "target": CONFIG["target"], "horizon": horizon, "season": season,
              "columns": [{"name": "history", "type": "series", "length": history}],
              "classes": None, "example": [{"history": [round(float(v), 6) for v in values[test_start - history:test_start]]}]}
    (out_dir / "schema.json").write_text(json.dumps(schema, indent=2))
    results = {
        "task": TASK, "metric": CONFIG["metric"], "direction": CONFIG["direction"],
        "metrics": test_metrics, "primary_metric": test_metrics.get(CONFIG["metric"]),
        "cv_score": float(best.value), "best_model": key, "best_params": params, "threshold": None,
        "positive_label": None, "input_seq_len": history, "pred_seq_len": horizon, "season": season,
        "n_trials": len(completed), "hpo_seconds": round(hpo_seconds, 2), "training_time_s": round(hpo_seconds + train_seconds, 3),
        "latency_ms": round(latency_ms, 4), "latency_p95_ms": round(latency_p95_ms, 4),
        "model_size_mb": round(len(pickle.dumps(model)) / 2**20, 4), "n_parameters": model.n_parameters_,
        "n_train": int(len(train_data[0])), "n_test": int(len(test_data[0])),
        "total_seconds": round(time.perf_counter() - started, 2),
    }
    write_results(results, completed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
