"""Training a table that outgrows one machine on a Dask cluster: LightGBM's Dask estimators, data read by the
workers as Dask frames (Parquet or CSV), the model brought back as an ordinary single-process pipeline.

This is trusted code on the platform side, not a generated script: the sandbox that holds a generated script has no
network, so it cannot reach a scheduler. What the plan decided (target, inputs, task, metric, test share, seed)
comes from the script's CONFIG; how the model is fitted is fixed here. The outputs are those of a sandboxed script
(results.json, model/model.joblib, model/schema.json, split.json), so the rest of the flow (verification, export,
registry, serving) treats them the same way.

The number of boosting rounds comes from two timed pilots on the cluster, so the fit ends within the budget it is
given; the model predicts with the round that did best on a tenth of the training rows.
"""

from __future__ import annotations

import ast
import json
import logging
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Literal

import joblib
import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

CLUSTER_TASKS = ("tabular_classification", "tabular_regression")
PILOT_ROUNDS = 10
MIN_ROUNDS = 100
MAX_ROUNDS = 2000
ENCODER_SAMPLE_ROWS = 200_000
PARTITION_ROWS = 500_000
VALIDATION_ROWS = 100_000  # of the tenth of the training rows held out to choose the round
# the share of the budget left after the pilot that the rounds may take; the rest scores, packs and brings back
ROUNDS_SHARE = 0.5


class ClusterTrainingJob(BaseModel):
    """What the cluster trains: plain values, from the script's CONFIG and the run's settings."""

    address: str | None = Field(default=None, description="the scheduler, tcp://HOST:PORT; None: a local cluster")
    data_path: str = Field(description="a Parquet file or folder, or a CSV file, that every worker can read")
    task: Literal["tabular_classification", "tabular_regression"]
    target: str
    numeric: list[str] = Field(default_factory=list)
    categorical: list[str] = Field(default_factory=list)
    metric: str
    direction: str = "maximize"
    test_size: float = Field(default=0.2, gt=0, lt=1)
    seed: int = 0
    budget_s: float = Field(default=60.0, gt=0)
    local_workers: int = Field(default=2, ge=1, description="workers of the local cluster, when no address is given")
    params: dict = Field(default_factory=lambda: {"learning_rate": 0.08, "num_leaves": 63, "min_child_samples": 20,
                                                  "colsample_bytree": 0.9})


class ClusterTrainingReport(BaseModel):
    address: str
    n_workers: int
    partitions: int
    n_train: int
    n_test: int
    rounds: int
    best_round: int = Field(description="the round the model predicts with: the best on a tenth of the training rows")
    pilot_s: float
    read_s: float
    fit_s: float
    total_s: float
    metrics: dict[str, float]


class ClusterTarget(BaseModel):
    address: str | None = Field(description="tcp://HOST:PORT of a running scheduler; None: a local cluster")
    rows: int


def table_rows(path: str) -> int | None:
    """Rows of a Parquet table from its footer (no data read); None for anything else."""
    try:
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # noqa: BLE001 - not Parquet, or unreadable: the sandbox reads it as ever
        return None


def cluster_for(task: str, data_path: str, task_runner: str | None, min_rows: int) -> ClusterTarget | None:
    """The cluster a run's table trains on: a Dask task runner is set, the task is a tabular classification or
    regression, and the table (the run's Parquet snapshot) has at least `min_rows` rows. Otherwise None."""
    if task not in CLUSTER_TASKS or not task_runner or not (task_runner == "dask" or task_runner.startswith("dask:")):
        return None
    rows = table_rows(data_path)
    if rows is None or rows < min_rows:
        return None
    return ClusterTarget(address=task_runner.partition(":")[2] or None, rows=rows)


def job_from_script(script: Path, *, address: str | None) -> ClusterTrainingJob:
    """The plan's decisions, read from the CONFIG literal of a rendered tabular script (never executed)."""
    for node in ast.parse(script.read_text()).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "CONFIG" \
                and node.value is not None:
            config = ast.literal_eval(node.value)
            break
    else:
        raise ValueError(f"{script.name} has no CONFIG literal")
    if config.get("task") not in CLUSTER_TASKS or config.get("text"):
        raise ValueError(f"a {config.get('task')} script with free-text inputs does not train on a cluster")
    return ClusterTrainingJob(address=address, data_path=config["data_path"], task=config["task"],
                              target=config["target"], numeric=config.get("numeric") or [],
                              categorical=config.get("categorical") or [], metric=config["metric"],
                              direction=config.get("direction", "maximize"), test_size=config.get("test_size", 0.2),
                              seed=config.get("seed", 0), budget_s=config.get("budget_s", 60.0))


@contextmanager
def dask_client(address: str | None, local_workers: int) -> Iterator:
    """A client of the cluster at `address`, or of a local cluster of worker processes that is closed afterwards."""
    from distributed import Client, LocalCluster

    if address:
        with Client(address, timeout="30s") as client:
            yield client
        return
    with LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=40) as cluster, Client(cluster) as client:
        yield client


def read_frame(path: str, columns: list[str], categorical: list[str]):
    """The table as a Dask frame of the columns named: Parquet (file or folder) or CSV, in blocks (a categorical
    column is read as text in every block, whatever one block's values look like)."""
    import dask.dataframe as dd

    source = Path(path)
    if source.is_dir() or source.suffix.lower() in {".parquet", ".pq"}:
        return dd.read_parquet(path, columns=columns)
    return dd.read_csv(path, usecols=columns, blocksize="64MB", assume_missing=True, sample=2_000_000,
                       dtype={c: "object" for c in categorical})


def train_on_cluster(job: ClusterTrainingJob, out_dir: Path, *, on_line=print) -> ClusterTrainingReport:
    """Fit, score and save; the outputs land in out_dir as a sandboxed tabular script leaves them."""
    import lightgbm as lgb
    from sklearn.pipeline import Pipeline

    from sklearn.frozen import FrozenEstimator
    from sklearn.model_selection import FixedThresholdClassifier

    from ..trainkit.evaluation import best_threshold
    from ..trainkit.runtime import FrameEncoder

    # LightGBM prints its Dask notes ('Finding random open ports ...') on stdout, where `run --json` writes its answer
    lgb.register_logger(logging.getLogger("lightgbm"))
    started = time.perf_counter()
    features = [*job.numeric, *job.categorical]
    classification = job.task == "tabular_classification"
    with dask_client(job.address, job.local_workers) as client:
        n_workers = len(client.scheduler_info()["workers"])
        frame = read_frame(job.data_path, [*features, job.target], job.categorical)
        frame = frame.dropna(subset=[job.target])
        # every worker holds rows, and so trains; no partition is larger than a worker's task should be
        wanted = max(n_workers, -(-(table_rows(job.data_path) or 0) // PARTITION_ROWS))
        if frame.npartitions < wanted:
            frame = frame.repartition(npartitions=wanted)
        for name in job.categorical:  # one type on every partition, whatever each one's sample says
            frame[name] = frame[name].astype("string")
        train, test = frame.random_split([1 - job.test_size, job.test_size], random_state=job.seed)
        train, test = client.persist(train), client.persist(test)
        # (the row numbers, gathered from the workers, count the rows too; the split keeps them for a baseline)
        train_index, test_index = train.index.compute().to_numpy(), test.index.compute().to_numpy()
        n_train, n_test = len(train_index), len(test_index)
        if n_train == 0 or n_test == 0:
            raise ValueError(f"the table has {n_train} training and {n_test} test rows with a {job.target} value")
        read_s = time.perf_counter() - started
        split = {"train_index": train_index, "test_index": test_index}
        on_line(f"cluster: {n_workers} workers, {frame.npartitions} partitions, {n_train:,} training rows")

        sample = train.sample(frac=min(1.0, ENCODER_SAMPLE_ROWS / n_train), random_state=job.seed).compute()
        encoder = FrameEncoder(numeric=job.numeric, categorical=job.categorical).fit(sample[features])
        # a tenth of the training rows tells which round the fit was best at (the Dask estimators cannot stop early)
        fitted, valid = (client.persist(p) for p in train.random_split([0.9, 0.1], random_state=job.seed + 1))
        # encoded once and held by the workers: every fit (the pilots too) reads the same arrays
        X_fit = client.persist(_encoded(fitted[features], encoder))
        X_test = _encoded(test[features], encoder)
        counts = sample[job.target].value_counts()
        # the rarer of two classes is the positive one, as in the sandbox's script
        positive = counts.index[-1] if classification and len(counts) == 2 else None
        if classification and len(counts) < 2:
            raise ValueError(f"the training rows hold one class of {job.target}: there is nothing to tell apart")
        labels = fitted[job.target] if not classification else fitted[job.target].astype(object)  # as LightGBM takes them
        y_fit = client.persist(labels.to_dask_array(lengths=True))
        n_valid = int(valid.shape[0].compute())
        held = valid.sample(frac=min(1.0, VALIDATION_ROWS / max(n_valid, 1)), random_state=job.seed).compute()
        estimator = lgb.DaskLGBMClassifier if classification else lgb.DaskLGBMRegressor

        def fit(rounds: int):
            model = estimator(client=client, n_estimators=rounds, random_state=job.seed, verbose=-1, **job.params)
            return model.fit(X_fit, y_fit)

        pilot_started = time.perf_counter()
        rounds = _rounds_within(fit, job.budget_s - (time.perf_counter() - started), job.budget_s, on_line)
        pilot_s = time.perf_counter() - pilot_started
        fit_started = time.perf_counter()
        model = fit(rounds)
        fit_s = time.perf_counter() - fit_started
        single = model.to_local()
        best_round = _best_round(single, encoder.transform(held[features]), held[job.target], rounds, classification)
        single.booster_.best_iteration = best_round  # what predict uses when no round is named
        on_line(f"cluster: {rounds} rounds in {fit_s:.1f} s; the best on the validation rows was round {best_round}")

        local = Pipeline([("preprocess", encoder), ("model", single)])
        threshold = None
        if classification and positive is not None and job.metric == "f1":
            # F1 of two classes is scored at the threshold tuned on the held-back rows, as in the sandbox's script
            held_proba = local.predict_proba(held[features])[:, list(single.classes_).index(positive)]
            threshold, _ = best_threshold(held[job.target].to_numpy(), held_proba, positive)
        metrics = _test_metrics(model, X_test, test[job.target].compute().to_numpy(), best_round, positive,
                                threshold, classification)
        if threshold is not None:
            local = FixedThresholdClassifier(FrozenEstimator(local), threshold=threshold, pos_label=positive,
                                             response_method="predict_proba").fit(held[features], held[job.target])
    report = ClusterTrainingReport(address=job.address or f"local cluster of {job.local_workers} processes",
                                   n_workers=n_workers, partitions=frame.npartitions, n_train=n_train, n_test=n_test,
                                   rounds=rounds, best_round=best_round, pilot_s=round(pilot_s, 2), read_s=round(read_s, 2),
                                   fit_s=round(fit_s, 2), total_s=round(time.perf_counter() - started, 2),
                                   metrics={k: float(v) for k, v in metrics.items() if isinstance(v, (int, float))})
    _write_outputs(job, report, local, sample, positive, threshold, out_dir, split)
    return report


def _rounds_within(fit, seconds: float, budget_s: float, on_line) -> int:
    """How many rounds fit in ROUNDS_SHARE of `seconds`, from timed pilots: what a fit costs whatever its length (the
    workers' network set-up) and what a round adds. The pilots' own time comes out of `seconds`."""
    started = time.perf_counter()
    fit(PILOT_ROUNDS)  # the first fit also pays once for what later fits find ready (the data on the workers)
    short_started = time.perf_counter()
    fit(PILOT_ROUNDS)
    long_started = time.perf_counter()
    short_s = long_started - short_started
    fit(3 * PILOT_ROUNDS)
    pilot_s = time.perf_counter() - started
    added = (time.perf_counter() - long_started - short_s) / (2 * PILOT_ROUNDS)
    # (where the set-up cost varied more than the rounds added, a round is taken to cost what the short pilot's did)
    per_round = added if added > 0 else short_s / PILOT_ROUNDS
    fixed = max(short_s - PILOT_ROUNDS * per_round, 0.0)
    rounds = int(max(PILOT_ROUNDS, min(MAX_ROUNDS, ((seconds - pilot_s) * ROUNDS_SHARE - fixed) / per_round)))
    # (where reading and the pilots took the whole budget, rounds that cost little still make a model worth having:
    # up to MIN_ROUNDS, within a tenth of the budget more)
    rounds = max(rounds, min(MIN_ROUNDS, int(0.1 * budget_s / per_round)))
    on_line(f"cluster: pilots took {pilot_s:.1f} s ({per_round * 1000:.0f} ms a round, {fixed:.1f} s a fit); "
            f"fitting {rounds} rounds")
    return rounds


def _test_metrics(model, X_test, truth: np.ndarray, best_round: int, positive, threshold: float | None,
                  classification: bool) -> dict:
    """The run's metrics on the held-out rows, predicted on the cluster with the chosen round (and threshold)."""
    from ..trainkit.evaluation import classification_metrics, regression_metrics

    if not classification:
        return regression_metrics(truth, model.predict(X_test, num_iteration=best_round).compute())
    pred = model.predict(X_test, num_iteration=best_round).compute()
    proba_all = model.predict_proba(X_test, num_iteration=best_round).compute()
    proba = proba_all[:, list(model.classes_).index(positive)] if positive is not None else None
    if threshold is not None and proba is not None:
        other = next(c for c in model.classes_ if c != positive)
        pred = np.where(proba >= threshold, positive, other)
    return classification_metrics(truth, pred, proba, positive)


def _best_round(model, X_valid, y_valid, rounds: int, classification: bool) -> int:
    """The round, of about 80 (closer together early on, where the best often is), at which the validation rows'
    loss (squared error, log loss) is least. Each stretch of trees is evaluated once: the raw scores add up from one
    candidate round to the next."""
    from scipy.special import expit, softmax
    from sklearn.metrics import log_loss

    candidates = sorted({int(r) for r in (*np.geomspace(1, rounds, 40), *np.linspace(1, rounds, 40))})
    raw: np.ndarray | float = 0.0
    losses = []
    for start, end in zip([0, *candidates[:-1]], candidates):
        raw = raw + model.predict(X_valid, raw_score=True, start_iteration=start, num_iteration=end - start)
        if not classification:
            losses.append(float(np.mean((np.asarray(y_valid, dtype=float) - raw) ** 2)))
            continue
        scores = np.asarray(raw)
        proba = softmax(scores, axis=1) if scores.ndim == 2 else np.column_stack([1 - expit(scores), expit(scores)])
        losses.append(float(log_loss(y_valid, proba, labels=model.classes_)))
    return candidates[int(np.argmin(losses))]


def _encoded(part, encoder):
    """The encoder's numbers of each partition, as one Dask array with known chunk sizes."""
    width = encoder.n_features_out_
    meta = pd.DataFrame({f"f{i}": pd.Series(dtype=float) for i in range(width)})
    encoded = part.map_partitions(lambda p: pd.DataFrame(encoder.transform(p), columns=meta.columns, index=p.index),
                                  meta=meta)
    return encoded.to_dask_array(lengths=True)


def _write_outputs(job: ClusterTrainingJob, report: ClusterTrainingReport, model, sample: pd.DataFrame,
                   positive, threshold: float | None, out_dir: Path, split: dict) -> None:
    from ..trainkit.evaluation import count_parameters, tabular_schema, time_requests
    from ..trainkit.splits import split_rows_entries

    features = [*job.numeric, *job.categorical]
    model_dir = out_dir / "model"
    model_dir.mkdir(parents=True, exist_ok=True)
    joblib.dump(model, model_dir / "model.joblib")
    schema = tabular_schema(sample[features], sample[job.target], task=job.task, target=job.target,
                            numeric=job.numeric, categorical=job.categorical, text=[],
                            classification=job.task == "tabular_classification")
    (model_dir / "schema.json").write_text(json.dumps(schema, indent=2))
    requests = [sample[features].iloc[[i % len(sample)]] for i in range(50)]
    latency_ms, latency_p95_ms = time_requests(model.predict, requests)
    primary = report.metrics.get(job.metric)
    results: dict[str, object] = {
        "task": job.task, "metric": job.metric, "direction": job.direction, "metrics": report.metrics,
        "primary_metric": primary, "cv_score": None, "best_model": "lightgbm_dask", "lead_model": "lightgbm_dask",
        "ensemble": None, "best_params": {**job.params, "n_estimators": report.best_round},
        "positive_label": None if positive is None else str(positive), "threshold": threshold,
        "n_trials": 1, "n_pruned": 0, "n_skipped": 0, "n_stopped": 0, "hpo_seconds": report.pilot_s,
        "training_time_s": round(report.pilot_s + report.fit_s, 3),
        "latency_ms": round(latency_ms, 4), "latency_p95_ms": round(latency_p95_ms, 4),
        "model_size_mb": round((model_dir / "model.joblib").stat().st_size / 2**20, 4),
        "n_parameters": count_parameters(model), "n_train": report.n_train, "n_test": report.n_test,
        "total_seconds": report.total_s, "device": "cpu", "trained_on": "dask",
        "cluster": report.model_dump(), "trials": [],
        "note": "trained on a Dask cluster: one LightGBM configuration, its rounds sized by two timed pilots and cut "
                "at the best round on a tenth of the training rows; the test score is on the held-out share of rows",
    }
    (out_dir / "results.json").write_text(json.dumps(results, indent=2, default=str))
    rows = split_rows_entries(split["train_index"], split["test_index"], out_dir)
    (out_dir / "split.json").write_text(json.dumps({"features": features, "target": job.target, **rows,
                                                    "split": "dask random_split", "seed": job.seed,
                                                    "test_size": job.test_size}))
