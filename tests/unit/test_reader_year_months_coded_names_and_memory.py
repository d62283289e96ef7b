"""Reader classes found by the blind batch holdout39, each on sentences and tables of its own: a series timed as
years with the month (1947.01) or the quarter (1959.3) after the point; 'the yield of dividends' for divyld, in
French too; 'the math score' for a coded name (tmathssk); 'the education of husband' for husEd before a name
whose letters the words only scatter; a year or an age said in an item that a name holds ('in 1981' pcInd81,
'if mother is 25 or older' mom25p); whose it is ('of the mother') is no target when the thing itself names a
column; 'una precisión (accuracy)'; 'must not be above 0.3'; a limit on memory is no limit on the model's size, and
the sandbox measures the training's peak memory; a training time said in the instruction bounds the search, and the
time measured against it is the search's and the final fit's together."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents import metrics
from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.contracts import RequirementSpec
from automl_agent.agents.operation_agent import training_budget_s
from automl_agent.agents.understanding.language import canonical
from automl_agent.sandbox import run_script
from automl_agent.trainkit.times import as_times, coded_dates, year_period_dates
from tests.unit.reader_cases import read as _read, saved as _saved


@pytest.fixture(scope="module")
def macro(tmp_path_factory):
    """Monthly macro series, the month written after the year's point as some econometrics tables do (1961.01)."""
    rng = np.random.default_rng(91)
    months = pd.period_range("1961-01", periods=240, freq="M")
    frame = pd.DataFrame({"obs": [float(f"{p.year}.{p.month:02d}") for p in months]})
    frame["stockidx"] = (60 + np.cumsum(rng.normal(0.3, 2, len(frame)))).round(2)
    frame["divyld"] = (3 + np.cumsum(rng.normal(0, 0.05, len(frame)))).round(3)
    frame["tbill3"] = (5 + np.cumsum(rng.normal(0, 0.1, len(frame)))).round(2)
    return _saved(tmp_path_factory, "macro", frame)


@pytest.fixture(scope="module")
def households(tmp_path_factory):
    """A survey of mothers: ids, the mother's and the husband's schooling, her work, her age band, her ethnic group,
    the share of a language spoken in the village in 1990."""
    rng = np.random.default_rng(92)
    n = 400
    return _saved(tmp_path_factory, "households", pd.DataFrame({
        "hh": np.arange(1, n + 1), "mom": rng.integers(1, 300, n), "momEd": rng.choice(["N", "P", "S"], n),
        "husEd": rng.choice(["N", "P", "S", "U"], n), "momWork": rng.choice(["Y", "N"], n),
        "mom30p": rng.choice(["Y", "N"], n), "ethn": rng.choice(["L", "I", "M"], n),
        "pcLang90": rng.uniform(0, 1, n).round(3), "vacc": rng.choice(["Y", "N"], n)}))


@pytest.fixture(scope="module")
def pupils(tmp_path_factory):
    """First-graders' test scores in coded names, with the teacher's experience and a school code."""
    rng = np.random.default_rng(93)
    n = 500
    return _saved(tmp_path_factory, "pupils", pd.DataFrame({
        "tsciencesk": rng.normal(500, 40, n).round(0), "twritessk": rng.normal(480, 35, n).round(0),
        "classk": rng.choice(["small", "regular"], n), "texpk": rng.integers(0, 30, n),
        "sex": rng.choice(["girl", "boy"], n), "schidkg": rng.integers(1, 80, n)}))


def test_years_with_the_month_or_the_quarter_after_the_point():
    monthly = pd.Series([1961.01, 1961.02, 1961.1, 1961.11, 1961.12, 1962.01] * 1, name="obs")
    assert year_period_dates(monthly) is None  # too few steps to be sure
    months = pd.Series([float(f"{y}.{m:02d}") for y in range(1961, 1964) for m in range(1, 13)], name="obs")
    assert as_times(months).dt.strftime("%Y-%m").tolist()[9:13] == ["1961-10", "1961-11", "1961-12", "1962-01"]
    quarters = pd.Series([float(f"{y}.{q}") for y in range(1959, 1967) for q in range(1, 5)], name="qtr")
    assert coded_dates(quarters).dt.strftime("%Y-%m").tolist()[:5] == ["1959-01", "1959-04", "1959-07", "1959-10",
                                                                        "1960-01"]
    # decimal years keep their reading (1961.5 is July), and plain measurements are no dates
    decimal = pd.Series(np.arange(1961, 1967, 0.25), name="time")
    assert coded_dates(decimal).dt.strftime("%Y-%m").tolist()[:3] == ["1961-01", "1961-04", "1961-07"]
    assert coded_dates(pd.Series(np.linspace(1000.5, 1200.7, 40), name="weight")) is None


def test_a_series_timed_in_year_months_is_forecast(macro):
    got = _read(macro, "Forecast the yield of dividends for the next 6 months from the last 24; the MAE must not be "
                       "above 0.3.")
    assert got["outcome"] == "ok" and got["task"] == "time_series_forecasting" and got["target"] == "divyld", got
    assert got["horizon"] == 6 and got["lookback"] == 24 and got["constraints"] == ["mae <= 0.3"]
    french = _read(macro, "Pourriez-vous prévoir le rendement en dividendes pour les six prochains mois ? "
                          "L'entraînement ne doit pas prendre plus de deux minutes.")
    assert french["outcome"] == "ok" and french["target"] == "divyld", french
    assert french["constraints"] == ["training_time_s <= 120"]


def test_a_word_whole_inside_a_coded_name(pupils):
    got = _read(pupils, "Predict the science score of each pupil. Please don't use the school code, and leave the "
                        "writing score out too.")
    assert got["outcome"] == "ok" and got["target"] == "tsciencesk", got
    assert got["excluded"] == ["schidkg", "twritessk"]


def test_the_owner_said_after_of_and_numbers_a_name_holds(households):
    got = _read(households, "I want to predict the ethnicity of the mother. Please use for input only the education "
                            "of husband, the percent language of village in 1990, if mother did work outside and if "
                            "mother is 30 or older.")
    assert got["outcome"] == "ok" and got["target"] == "ethn", got
    assert got["features"] == ["husEd", "mom30p", "momWork", "pcLang90"]
    schooling = _read(households, "Predict the education level of the mother from ethn and vacc only.")
    assert schooling["outcome"] == "ok" and schooling["target"] == "momEd", schooling


@pytest.mark.parametrize("said, bound", [
    ("Quiero un clasificador de la etnia con una precisión (accuracy) de al menos 85 %.", ("accuracy", ">=", 0.85)),
    ("precision (i.e. accuracy) of at least 0.7", ("accuracy", ">=", 0.7)),
    ("accuracy should not fall below 80%", ("accuracy", ">=", 0.8)),
    ("the RMSE must not go above 12", ("rmse", "<=", 12.0))])
def test_a_metric_restated_in_parentheses_and_bounds_said_as_what_may_not_happen(said, bound):
    assert [(c.name, c.op, c.target) for c in parse_constraints(canonical(said, ()).text)] == [bound]


@pytest.mark.parametrize("said, found", [
    ("at most 200 MB of memory", ("peak_memory_mb", "<=", 200.0)),
    ("RAM usage under 2 GB", ("peak_memory_mb", "<", 2048.0)),
    ("the model file must stay under 10 MB", ("model_size_mb", "<", 10.0)),
    ("the model must be under 5 MB", ("model_size_mb", "<", 5.0))])
def test_a_limit_on_memory_is_no_limit_on_the_models_size(said, found):
    assert [(c.name, c.op, c.target) for c in parse_constraints(said)] == [found]
    assert metrics.kind(found[0]) == "complexity" and metrics.direction(found[0]) == "minimize"


def test_the_sandbox_measures_the_peak_memory_of_a_script(tmp_path):
    script = tmp_path / "hold.py"
    script.write_text("import numpy as np\nblock = np.ones(40_000_000)\nprint(block.sum())\n")  # 320 MB
    outcome = run_script(script, tmp_path / "work", timeout_s=60)
    assert outcome.returncode == 0, outcome.tail
    assert outcome.peak_memory_mb is not None and 320 < outcome.peak_memory_mb < 1000, outcome.peak_memory_mb
    assert not (Path(tmp_path / "work") / ".peak_memory_mb").exists()


def _spec_with(*constraints: dict) -> RequirementSpec:
    return RequirementSpec.model_validate({"problem": {"downstream_task": "tabular_classification", "metric": "f1",
                                                       "constraints": list(constraints)},
                                           "dataset": {"target": "churn"}})


def test_a_training_time_said_in_the_instruction_bounds_the_search():
    limit = {"name": "training_time_s", "op": "<=", "target": 20.0, "kind": "complexity"}
    assert training_budget_s(_spec_with(limit), 60.0) == pytest.approx(18.0)  # the search and the fit inside 20 s
    assert training_budget_s(_spec_with(limit), 10.0) == 10.0  # a smaller budget stays
    assert training_budget_s(_spec_with({"name": "training_time_s", "op": ">=", "target": 5.0}), 60.0) == 60.0
    assert training_budget_s(_spec_with(), 60.0) == 60.0
