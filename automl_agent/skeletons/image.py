"""Training script skeleton: image classification from a labels table (one image path per row) with PIL + torch.

The operation agent fills CONFIG. The script loads the images (grayscale or RGB, resized to a square side), splits
the rows stratified, searches the candidates (a small CNN with shift augmentation, a logistic regression on the
pixels) with Optuna on a validation slice of the training rows within the time budget, refits the best on all
training rows and writes model/model.joblib, model/schema.json, split.json and results.json.
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
import optuna
import pandas as pd
from sklearn.model_selection import train_test_split

from automl_agent.trainkit.evaluation import label_metrics, time_requests, write_results
from automl_agent.trainkit.runtime import ImageClassifier, forget_images, image_to_base64, unreadable_images
from automl_agent.trainkit.search import enqueue_defaults, progress_printer, suggest_candidate, trial_time_limit

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.WARNING)

CONFIG: dict = {}  # filled in by the operation agent

TASK = CONFIG["task"]
SEED = CONFIG.get("seed", 0)


def load_table() -> tuple[pd.DataFrame, str]:
    path = Path(CONFIG["data_path"])
    frame = pd.read_parquet(path) if path.suffix.lower() in {".parquet", ".pq"} else pd.read_csv(path)
    frame.columns = [str(c).strip() for c in frame.columns]
    frame = frame.dropna(subset=[CONFIG["target"], CONFIG["image_column"]])
    base_dir = str(path.resolve().parent)
    missing, broken = unreadable_images(frame[CONFIG["image_column"]].astype(str).tolist(), base_dir)
    if missing or broken:
        print(f"skipping {len(missing)} missing and {len(broken)} unreadable image(s)", flush=True)
        frame = frame[~frame[CONFIG["image_column"]].astype(str).isin(set(missing) | set(broken))]
    return frame, base_dir


def image_geometry(frame: pd.DataFrame, base_dir: str) -> tuple[int, int]:
    """A square side between 16 and 64 pixels near the images' own size, and 1 or 3 channels."""
    from PIL import Image

    first = Path(str(frame[CONFIG["image_column"]].iloc[0]))
    with Image.open(first if first.is_absolute() else Path(base_dir) / first) as image:
        side = max(image.size)
        channels = 1 if image.mode in {"L", "1", "I", "I;16", "F", "LA"} else 3
    return int(min(max(side, 16), 64)), channels


def make_model(key: str, params: dict, size: int, channels: int, base_dir: str, time_limit: float | None):
    kind = "pixels_logistic" if key == "pixels_logistic_regression" else "cnn"  # small_cnn
    return ImageClassifier(kind=kind, column=CONFIG["image_column"], size=size, channels=channels, base_dir=base_dir,
                           seed=SEED, time_limit_s=time_limit, **params)


def main() -> int:
    started = time.perf_counter()
    frame, base_dir = load_table()
    size, channels = image_geometry(frame, base_dir)
    X, y = frame[[CONFIG["image_column"]]], frame[CONFIG["target"]].astype(str)
    stratify = y if y.value_counts().min() >= 2 else None
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=CONFIG.get("test_size", 0.2), random_state=SEED,
                                                        stratify=stratify)
    Path("split.json").write_text(json.dumps({"features": [CONFIG["image_column"]], "target": CONFIG["target"],
                                              "train_index": X_train.index.tolist(), "test_index": X_test.index.tolist()}))
    X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.2, random_state=SEED,
                                                  stratify=y_train if stratify is not None else None)
    candidates = CONFIG["candidates"]
    metric = CONFIG["metric"]
    budget = CONFIG["hpo_budget_s"]
    search_started = time.perf_counter()

    def objective(trial: optuna.Trial) -> float:
        candidate, params = suggest_candidate(trial, candidates)
        key = candidate["model"]
        model = make_model(key, params, size, channels, base_dir,
                           time_limit=trial_time_limit(budget, search_started)).fit(X_fit, y_fit)
        trial.set_user_attr("model_key", key)
        trial.set_user_attr("params", params)
        return label_metrics(y_val.to_numpy(), model.predict(X_val)).get(metric, 0.0)

    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=SEED))
    # every candidate's defaults first, the cheap ones before the CNN so a small budget still compares them
    enqueue_defaults(study, candidates, first=("pixels_logistic_regression",))
    study.optimize(objective, n_trials=CONFIG.get("max_trials", 50), timeout=budget,
                   callbacks=[progress_printer(search_started)], catch=(ValueError, RuntimeError))
    completed = [t for t in study.trials if t.value is not None]
    if not completed:
        print("no hyperparameter trial finished", file=sys.stderr)
        return 2
    best = study.best_trial
    key, params = best.user_attrs["model_key"], best.user_attrs["params"]
    t0 = time.perf_counter()
    model = make_model(key, params, size, channels, base_dir, time_limit=max(10.0, budget * 0.5)).fit(X_train, y_train)
    training_seconds = time.perf_counter() - search_started  # the search and the final fit
    test_metrics = label_metrics(y_test.to_numpy(), model.predict(X_test))

    examples = [image_to_base64(str(Path(base_dir) / p) if not Path(str(p)).is_absolute() else str(p))
                for p in X_test[CONFIG["image_column"]].head(3)]
    # a served request carries an encoded image: decoding it is part of the latency
    latency_ms, latency_p95_ms = time_requests(model.predict, [pd.DataFrame({CONFIG["image_column"]: [example]})
                                                               for example in examples],
                                               runs=60, before_each=forget_images, warm_up=False)
    model.base_dir = None  # the served model takes encoded images, never paths on the server
    out_dir = Path("model")
    out_dir.mkdir(exist_ok=True)
    joblib.dump(model, out_dir / "model.joblib")
    schema = {"task": TASK, "target": CONFIG["target"], "image_size": size, "channels": channels,
              "columns": [{"name": CONFIG["image_column"], "type": "image", "encoding": "base64 PNG or JPEG"}],
              "classes": [str(c) for c in model.classes_], "example": [{CONFIG["image_column"]: examples[0]}]}
    (out_dir / "schema.json").write_text(json.dumps(schema, indent=2))
    results = {
        "task": TASK, "metric": metric, "direction": "maximize", "metrics": test_metrics,
        "primary_metric": test_metrics.get(metric), "cv_score": float(best.value), "best_model": key,
        "best_params": params, "threshold": None, "positive_label": None, "image_size": size, "channels": channels,
        "n_trials": len(completed), "hpo_seconds": round(time.perf_counter() - search_started, 2),
        "training_time_s": round(training_seconds, 3), "latency_ms": round(latency_ms, 4),
        "latency_p95_ms": round(latency_p95_ms, 4),
        "model_size_mb": round(len(pickle.dumps(model)) / 2**20, 4), "n_parameters": model.n_parameters_,
        "n_train": int(len(X_train)), "n_test": int(len(X_test)), "total_seconds": round(time.perf_counter() - started, 2),
    }
    write_results(results, completed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
