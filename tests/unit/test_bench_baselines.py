"""The quality suite and the AutoGluon baseline's plumbing: the suite's extra datasets load, an added baseline shows
as its own column, a missing AutoGluon environment is a clear error before any run, unknown dataset names are
refused. (AutoGluon itself is exercised in test_autogluon_baseline_scores_the_runs_own_split when its environment is
there.)"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from automl_agent.benchmark import autogluon_baseline
from automl_agent.benchmark.suite import load_suite, materialise
from automl_agent.errors import UserFacingError
from automl_agent.flows.bench import BenchOptions, BenchReport, BenchRow, to_markdown


def test_the_tabular_suite_covers_the_dev_suites_tables_and_four_more():
    dev = {c.dataset for c in load_suite("dev").cases if c.task.startswith("tabular")}
    tabular = load_suite("tabular")
    names = {c.dataset for c in tabular.cases}
    assert dev <= names and {"attrition", "credit", "ames", "crabs"} <= names
    for case in tabular.cases:
        if case.data.startswith("sklearn:"):
            continue
        frame = pd.read_csv(materialise(case, Path("/nonexistent")))
        assert case.target in frame.columns and len(frame) >= 200, case.dataset


def test_an_added_baseline_gets_its_own_column():
    row = BenchRow(task="tabular_regression", dataset="ames", setting="free", repeat=1, status="succeeded",
                   metric="rmsle", value=0.12, sr=1.0, baseline="FLAML AutoML", baseline_value=0.13,
                   other_baselines={"AutoGluon medium_quality": 0.125})
    report = BenchReport(bench_id="b", suite="tabular", options=BenchOptions(), rows=[row], averages={}, wall_s=1.0)
    table = to_markdown(report)
    assert "| baseline value | AutoGluon medium_quality | SR |" in table
    assert "| 0.1300 | 0.1250 | 1.00 |" in table


def test_without_an_autogluon_environment_the_error_says_how_to_get_one(monkeypatch, tmp_path):
    monkeypatch.setenv(autogluon_baseline.PYTHON_VARIABLE, str(tmp_path / "nothing" / "python"))
    with pytest.raises(UserFacingError) as caught:
        autogluon_baseline.autogluon_python()
    assert "make autogluon" in caught.value.hint and autogluon_baseline.PYTHON_VARIABLE in str(caught.value)


def test_bench_refuses_an_autogluon_baseline_it_cannot_run_before_running_anything(monkeypatch, tmp_path, capsys):
    from automl_agent.cli.app import main

    monkeypatch.setenv(autogluon_baseline.PYTHON_VARIABLE, str(tmp_path / "python"))
    code = main(["--workdir", str(tmp_path / "wd"), "bench", "--suite", "tabular", "--baseline", "autogluon"])
    err = capsys.readouterr().err
    assert code != 0 and "make autogluon" in err and "Traceback" not in err
    assert not (tmp_path / "wd" / "bench").exists()


@pytest.mark.integration
@pytest.mark.skipif(not Path(os.environ.get(autogluon_baseline.PYTHON_VARIABLE, ".venv-autogluon/bin/python")).exists(),
                    reason="no AutoGluon environment (make autogluon)")
def test_autogluon_baseline_scores_the_runs_own_split(tmp_path):
    from automl_agent.benchmark.baselines import score_extra_baseline

    data = Path(materialise(next(c for c in load_suite("tabular").cases if c.dataset == "concrete"), tmp_path))
    frame = pd.read_csv(data)
    split = tmp_path / "split.json"
    features = [c for c in frame.columns if c != "compressive_strength"]
    order = np.random.default_rng(0).permutation(len(frame)).tolist()
    split.write_text(json.dumps({"features": features, "target": "compressive_strength",
                                 "train_index": order[:800], "test_index": order[800:]}))
    rmse = score_extra_baseline("autogluon", "tabular_regression", "rmse", data, split, budget_s=15)
    assert 2.0 < rmse < 12.0  # the target's spread is about 16.7
    assert score_extra_baseline("autogluon", "tabular_clustering", "rand_index", data, split, 15) is None


def test_bench_names_the_suites_datasets_when_asked_for_one_it_lacks(tmp_path, capsys):
    from automl_agent.cli.app import main

    code = main(["--workdir", str(tmp_path / "wd"), "bench", "--suite", "tabular", "--only", "diamonds,titanic"])
    err = capsys.readouterr().err
    assert code != 0 and "no dataset named titanic" in err and "ames" in err and "Traceback" not in err
    assert not (tmp_path / "wd").exists()


def _bench(path: Path, bench_id: str, rows: list[dict], only: list[str]) -> Path:
    path.write_text(json.dumps({"bench_id": bench_id, "options": {"only": only, "repeats": 1, "budget_s": 60.0},
                                "rows": rows}))
    return path


def _row(dataset: str, repeat: int, value: float, flaml: float | None, autogluon: float | None, metric="rmse") -> dict:
    return {"dataset": dataset, "setting": "free", "repeat": repeat, "metric": metric, "value": value,
            "baseline": "FLAML AutoML", "baseline_value": flaml, "wall_s": 60.0,
            "other_baselines": {} if autogluon is None else {"AutoGluon medium_quality": autogluon}}


def test_the_quality_table_merges_reruns_and_counts_wins_per_split(tmp_path):
    import importlib.util

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "tabular_quality.py"
    spec = importlib.util.spec_from_file_location("tabular_quality", script)
    quality = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(quality)
    first = _bench(tmp_path / "a.json", "A", [_row("diamonds", 1, 530.0, 536.0, 520.0),
                                              _row("churn", 1, 0.60, 0.58, 0.61, metric="f1")], [])
    rerun = _bench(tmp_path / "b.json", "B", [_row("diamonds", 1, 518.0, None, None)], ["diamonds"])
    repeats = _bench(tmp_path / "c.json", "C", [_row("churn", 2, 0.64, 0.59, 0.62, metric="f1")], ["churn"])
    rows, sources = quality.merged_rows([first, rerun, repeats])
    diamonds = next(r for r in rows if r["dataset"] == "diamonds")
    assert (diamonds["value"], diamonds["baseline_value"], diamonds["bench_id"], diamonds["baselines_from"]) == \
        (518.0, 536.0, "B", "A")  # the rerun's model, the first run's baselines on the same split
    table = {t["dataset"]: t for t in quality.summary(rows)}
    assert table["diamonds"]["wins_vs_autogluon"] == 1  # 518 <= 520: lower is better for RMSE
    churn = table["churn"]
    assert churn["splits"] == 2 and churn["agent"] == pytest.approx(0.62) and churn["autogluon"] == pytest.approx(0.615)
    assert (churn["wins_vs_baseline"], churn["wins_vs_autogluon"]) == (2, 1)
    assert "| churn | f1 | 2 | 0.6200 | 0.5850 | 0.6150 | 2/2 | 1/2 |" in quality.markdown(rows, list(table.values()), sources)
