"""What the training-script skeletons share: choosing a candidate and sampling its space, trying each candidate's
defaults first, a time limit per trial, and one PROGRESS line per finished trial (the flow prints them as they
come)."""

from __future__ import annotations

import json
import time
from typing import Callable

import optuna


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


def suggest_candidate(trial: optuna.Trial, candidates: list[dict]) -> tuple[dict, dict]:
    """The candidate this trial tries (by its index, as `default_trial` enqueues it) and a point of its space."""
    candidate = candidates[trial.suggest_categorical("model", list(range(len(candidates))))]
    return candidate, sample_params(trial, candidate["model"], candidate["search_space"])


def trial_time_limit(budget_s: float, search_started: float) -> float:
    """Seconds one trial may train: what is left of the budget, but never more than half of it, so that no single
    trial takes the whole budget and the other candidates get their turn (at least 5 s)."""
    return max(5.0, min(budget_s / 2, budget_s - (time.perf_counter() - search_started)))


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


def enqueue_defaults(study: optuna.Study, candidates: list[dict], first: tuple[str, ...] = (),
                     overrides: dict | None = None, warm_starts_both_ways: bool = False,
                     n_rows: int | None = None) -> int:
    """Every candidate's defaults are tried before the sampler explores; models named in `first` go first.
    `overrides` (e.g. a log target the data calls for) replace defaults wherever a candidate searches that
    parameter, and the lead candidate is also tried without them, so validation decides between the two. A
    candidate's `warm_starts` (configurations the knowledge base knows to do well) follow all the defaults; with
    `warm_starts_both_ways` each is tried with and without the overrides (a model of log prices and one of prices
    err differently, and a blend of the two beats either when the metric is on the raw scale). A warm start that
    names `min_rows` is for tables at least that large (`n_rows`: the training rows). Returns how many trials are
    now queued: the study's first trials are these."""
    order = sorted(enumerate(candidates), key=lambda item: item[1]["model"] not in first)

    def enqueue(index: int, candidate: dict, values: dict) -> None:
        point = {**candidate, "hyperparameters": {**candidate["hyperparameters"], **values}}
        study.enqueue_trial(default_trial(index, candidate["model"], point), skip_if_exists=True)

    changed = {index: {k: v for k, v in (overrides or {}).items() if k in candidate["search_space"]}
               for index, candidate in order}
    for index, candidate in order:
        enqueue(index, candidate, changed[index])
        if changed[index] and index == order[0][0]:
            enqueue(index, candidate, {})
    # then the knowledge base's proven configurations (warm starts), costlier than the defaults
    for index, candidate in order:
        for warm in candidate.get("warm_starts") or []:
            if warm.get("min_rows") and (n_rows is None or n_rows < warm["min_rows"]):
                continue
            enqueue(index, candidate, {**warm, **changed[index]})
            if warm_starts_both_ways and changed[index]:
                enqueue(index, candidate, warm)
    return len(study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.WAITING,)))


def progress_printer(started: float) -> Callable[[optuna.Study, optuna.trial.FrozenTrial], None]:
    def report(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        if trial.state != optuna.trial.TrialState.COMPLETE:  # failed, or pruned with a partial score
            return
        print("PROGRESS " + json.dumps({
            "trial": trial.number + 1, "model": trial.user_attrs.get("model_key"), "value": round(trial.value, 6),
            "best": round(study.best_value, 6), "elapsed_s": round(time.perf_counter() - started, 2),
        }), flush=True)
    return report

