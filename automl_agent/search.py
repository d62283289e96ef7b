"""What the training-script skeletons share: sampling a candidate's space, trying each candidate's defaults first,
one PROGRESS line per finished trial (the flow prints them as they come), and the label metrics of the image and
graph skeletons."""

from __future__ import annotations

import json
import time
from typing import Callable

import optuna
from sklearn import metrics as skm


def sample_params(trial: optuna.Trial, key: str, space: dict) -> dict:
    """A point of a candidate's search space (categorical choices are sampled by index: they may be None)."""
    params = {}
    for name, spec in space.items():
        label = f"{key}.{name}"
        if spec["type"] == "int":
            params[name] = trial.suggest_int(label, spec["low"], spec["high"], log=spec.get("log", False))
        elif spec["type"] == "float":
            params[name] = trial.suggest_float(label, spec["low"], spec["high"], log=spec.get("log", False))
        else:
            choices = spec["choices"]
            params[name] = choices[trial.suggest_categorical(label, list(range(len(choices))))]
    return params


def default_trial(index: int, key: str, candidate: dict) -> dict:
    """The trial that evaluates a candidate's starting hyperparameters (clamped into its space)."""
    params = {"model": index}
    for name, spec in candidate["search_space"].items():
        value = candidate["hyperparameters"].get(name)
        if spec["type"] == "categorical":
            choices = spec["choices"]
            params[f"{key}.{name}"] = choices.index(value) if value in choices else 0
        elif value is not None:
            params[f"{key}.{name}"] = min(max(value, spec["low"]), spec["high"])
    return params


def enqueue_defaults(study: optuna.Study, candidates: list[dict], first: tuple[str, ...] = ()) -> None:
    """Every candidate's defaults are tried before the sampler explores; models named in `first` go first."""
    order = sorted(enumerate(candidates), key=lambda item: item[1]["model"] not in first)
    for index, candidate in order:
        study.enqueue_trial(default_trial(index, candidate["model"], candidate), skip_if_exists=True)


def progress_printer(started: float) -> Callable[[optuna.Study, optuna.trial.FrozenTrial], None]:
    def report(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        if trial.value is None:
            return
        print("PROGRESS " + json.dumps({
            "trial": trial.number + 1, "model": trial.user_attrs.get("model_key"), "value": round(trial.value, 6),
            "best": round(study.best_value, 6), "elapsed_s": round(time.perf_counter() - started, 2),
        }), flush=True)
    return report


def label_metrics(y_true, y_pred) -> dict:
    """Accuracy, F1, precision and recall: binary on the last label for two classes, macro-averaged otherwise."""
    binary = len(set(y_true)) <= 2
    kwargs = {"average": "binary" if binary else "macro", "zero_division": 0}
    if binary:
        kwargs["pos_label"] = sorted(set(y_true))[-1]
    return {"accuracy": float(skm.accuracy_score(y_true, y_pred)), "f1": float(skm.f1_score(y_true, y_pred, **kwargs)),
            "precision": float(skm.precision_score(y_true, y_pred, **kwargs)),
            "recall": float(skm.recall_score(y_true, y_pred, **kwargs))}
