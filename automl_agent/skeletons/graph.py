"""Training script skeleton: node classification on a graph (PyTorch Geometric).

The operation agent fills CONFIG. The script reads the graph (Planetoid files, or nodes.csv + edges.csv), splits the
labelled nodes (the dataset's own masks when it has them), searches the candidates (GCN, GraphSAGE, GAT, SGC, a
feature-only MLP, label propagation) with Optuna on the validation nodes within the time budget, keeps the best
trial's model (its epoch picked on the validation nodes), scores it on the test nodes and writes model/model.joblib,
model/schema.json, split.json and results.json.
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

from automl_agent.data.graph import load_graph, split_nodes
from automl_agent.trainkit.evaluation import label_metrics, time_requests, write_results
from automl_agent.trainkit.graph_model import GraphNodeClassifier
from automl_agent.trainkit.search import enqueue_defaults, progress_printer, suggest_candidate, trial_time_limit

warnings.filterwarnings("ignore")
optuna.logging.set_verbosity(optuna.logging.WARNING)

CONFIG: dict = {}  # filled in by the operation agent

TASK = CONFIG["task"]
SETTABLE = set(GraphNodeClassifier().get_params()) - {"kind", "node_column", "seed", "time_limit_s"}
SEED = CONFIG.get("seed", 0)


def main() -> int:
    started = time.perf_counter()
    graph = load_graph(CONFIG["data_path"], target=CONFIG["target"], node_column=CONFIG.get("node_column"))
    train, val, test, split_source = split_nodes(graph, test_size=CONFIG.get("test_size", 0.2), seed=SEED)
    Path("split.json").write_text(json.dumps({
        "features": [graph.node_column], "target": graph.label_column, "split_source": split_source,
        "train_index": train.tolist(), "val_index": val.tolist(), "test_index": test.tolist()}))
    print(f"{graph.n_nodes} nodes, {graph.edges.shape[1] // 2} edges, {graph.features.shape[1]} features; "
          f"{len(train)} train / {len(val)} validation / {len(test)} test nodes ({split_source})", flush=True)
    candidates = CONFIG["candidates"]
    metric = CONFIG["metric"]
    budget = CONFIG["hpo_budget_s"]
    search_started = time.perf_counter()
    best_so_far: dict = {"score": float("-inf")}  # the best trial's model is the one delivered: no second fit

    def objective(trial: optuna.Trial) -> float:
        candidate, sampled = suggest_candidate(trial, candidates)
        key = candidate["model"]
        params = {**{k: v for k, v in candidate["hyperparameters"].items() if k in SETTABLE}, **sampled}
        remaining = trial_time_limit(budget, search_started)
        t0 = time.perf_counter()
        model = GraphNodeClassifier(kind=key, node_column=graph.node_column, seed=SEED, time_limit_s=remaining,
                                    **params).fit(graph, train, val)
        fit_seconds = time.perf_counter() - t0
        trial.set_user_attr("model_key", key)
        trial.set_user_attr("params", params)
        score = label_metrics(graph.labels[val], model.predict(graph.node_ids[val])).get(metric, 0.0)
        if score > best_so_far["score"]:
            best_so_far.update(score=score, model=model, number=trial.number, fit_seconds=fit_seconds)
        return score

    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=SEED))
    # the cheap candidates' defaults first, so a small budget still compares every model family
    enqueue_defaults(study, candidates, first=("label_propagation", "sgc", "gcn"))
    study.optimize(objective, n_trials=CONFIG.get("max_trials", 50), timeout=budget,
                   callbacks=[progress_printer(search_started)], catch=(ValueError, RuntimeError))
    completed = [t for t in study.trials if t.value is not None]
    if not completed or "model" not in best_so_far:
        print("no hyperparameter trial finished", file=sys.stderr)
        return 2
    model, best = best_so_far["model"], study.trials[best_so_far["number"]]
    training_seconds = time.perf_counter() - search_started  # the search; its best model is the one kept
    key, params = best.user_attrs["model_key"], best.user_attrs["params"]
    test_metrics = label_metrics(graph.labels[test], model.predict(graph.node_ids[test]))

    examples = graph.node_ids[test[:3]].tolist()
    # a cold forward pass over the whole graph each time: the conservative latency
    latency_ms, latency_p95_ms = time_requests(model.predict, [[node] for node in examples], runs=30,
                                               before_each=model.forget, warm_up=False)
    model.time_limit_s = None
    out_dir = Path("model")
    out_dir.mkdir(exist_ok=True)
    joblib.dump(model, out_dir / "model.joblib")
    schema = {"task": TASK, "target": graph.label_column, "n_nodes": graph.n_nodes,
              "columns": [{"name": graph.node_column, "type": "node", "n_nodes": graph.n_nodes,
                           "examples": graph.node_ids[:5].tolist()}],
              "classes": [str(c) for c in model.classes_], "example": [{graph.node_column: examples[0]}]}
    (out_dir / "schema.json").write_text(json.dumps(schema, indent=2))
    results = {
        "task": TASK, "metric": metric, "direction": "maximize", "metrics": test_metrics,
        "primary_metric": test_metrics.get(metric), "cv_score": float(best.value), "best_model": key,
        "best_params": params, "threshold": None, "positive_label": None, "split_source": split_source,
        "n_trials": len(completed), "hpo_seconds": round(time.perf_counter() - search_started, 2),
        "training_time_s": round(training_seconds, 3), "epochs_trained": model.epochs_trained_,
        "latency_ms": round(latency_ms, 4), "latency_p95_ms": round(latency_p95_ms, 4),
        "model_size_mb": round(len(pickle.dumps(model)) / 2**20, 4), "n_parameters": model.n_parameters_,
        "n_train": int(len(train)), "n_val": int(len(val)), "n_test": int(len(test)),
        "total_seconds": round(time.perf_counter() - started, 2),
    }
    write_results(results, completed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
