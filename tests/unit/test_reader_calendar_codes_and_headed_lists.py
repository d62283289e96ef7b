"""Reader classes found by the blind batch holdout41, each on sentences and tables of its own: a month's column (jan ...
dec) is named by its month, not by 'market', the verb 'may' or a date ('January 1964'); 'non-residential' keeps its
'non' for a name (rnonc); a word ending a coded name (lnrlfood, lntotal); a column's square or log beside it (educ,
educsq) fits 'education' as the plain one, and a word that is another column's whole name ('except educsq') says
nothing of the column inside it; items in parentheses after a heading are kinds of it ('health indicators (very good,
good, fair)'); a heading's list given after 'only' in parentheses; 'urban or not'; French elisions (l'âge, d'études)
and articles ('une', 'un') read as 'a'; a memory limit in GB counts 1024 MB."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.understanding.language import canonical
from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """Monthly building series with month dummies, levels and growth."""
    rng = np.random.default_rng(301)
    n = 180
    months = pd.date_range("1970-01-01", periods=n, freq="MS")
    frame = pd.DataFrame({"year": months.year, "month": months.month,
                          "rnonb": 9000 + rng.normal(0, 50, n).cumsum(), "rresb": 7000 + rng.normal(0, 40, n).cumsum(),
                          "prcsteel": 60 + rng.normal(0, 0.5, n).cumsum()})
    frame["gprcsteel"] = np.r_[0, np.diff(np.log(frame["prcsteel"]))].round(5)
    for i, name in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]):
        frame[name] = (months.month == i + 1).astype(int)
    return saved(tmp_path_factory, "builds", frame)


@pytest.fixture(scope="module")
def homes(tmp_path_factory):
    """A household survey with logged spending and a coded county."""
    rng = np.random.default_rng(302)
    n = 400
    educ = rng.integers(0, 18, n)
    return saved(tmp_path_factory, "homes", pd.DataFrame({
        "sex": rng.choice(["male", "female"], n), "age": rng.integers(20, 80, n), "educ": educ,
        "educsq": educ ** 2, "rural": rng.integers(0, 2, n), "hhsize": rng.integers(1, 9, n),
        "lnrlrent": rng.normal(6, 1, n).round(3), "lntotal": rng.normal(9, 1, n).round(3),
        "exmood": rng.integers(0, 2, n), "vgmood": rng.integers(0, 2, n), "goodmood": rng.integers(0, 2, n),
        "fairmood": rng.integers(0, 2, n), "county": rng.integers(100, 160, n)}))


def test_a_month_column_is_not_market_may_or_a_date(builds):
    got = _read(builds, "I work in the construction market. Monthly data from January 1970 to December 1984. "
                        "Forecast real non-residential building for the next 6 months; training may take 10 minutes.")
    assert got["outcome"] == "ok" and got["target"] == "rnonb" and got["horizon"] == 6, got


def test_a_growth_column_only_when_a_rate_is_asked(builds):
    plain = _read(builds, "Forecast the steel price for the next 3 months.")
    assert plain["outcome"] == "ok" and plain["target"] == "prcsteel", plain
    growth = _read(builds, "Forecast how fast the steel price grows month over month for the next 3 months.")
    assert growth["outcome"] == "ok" and growth["target"] == "gprcsteel", growth


def test_a_word_ending_a_coded_name(homes):
    got = _read(homes, "A regression for the household's rent spending, which is in logs already.")
    assert got["outcome"] == "ok" and got["target"] == "lnrlrent", got


def test_the_plain_column_beside_its_square(homes):
    got = _read(homes, "Regress years of schooling on all other columns except educsq (the square of the target).")
    assert got["outcome"] == "ok" and got["target"] == "educ" and got["excluded"] == ["educsq"], got
    got = _read(homes, "Predict total spending in logs from age, education and household size.")
    assert got["outcome"] == "ok" and got["features"] == ["age", "educ", "hhsize"], got


def test_items_in_parentheses_are_kinds_of_the_heading(homes):
    got = _read(homes, "Predict whether the respondent reports an excellent mood. Use every other column except "
                       "the other mood indicators (very good, good, fair), they answer the same question.")
    assert got["outcome"] == "ok" and got["excluded"] == ["fairmood", "goodmood", "vgmood"], got


def test_a_headings_list_after_only(homes):
    got = _read(homes, "predict log total household expenditure from the household basics only (age, years of "
                       "schooling, rural or not, sex); RMSE at most 0.6")
    assert got["outcome"] == "ok" and got["target"] == "lntotal", got
    assert got["features"] == ["age", "educ", "rural", "sex"], got


def test_french_elisions_and_articles():
    text = canonical("Je voudrais prédire à partir de l'âge et du nombre d'années d'études, en une minute.", ()).text
    assert "the age" in text and "of years of" in text and "a minute" in text and "1 minute" not in text, text
    assert "a school" in canonical("Quiero saber si el alumno va a una escuela pública.", ()).text


@pytest.mark.parametrize("said, found", [("no more than 1 GB of memory", ("peak_memory_mb", "<=", 1024.0)),
                                         ("Das Modell soll weniger als 2 GB Arbeitsspeicher brauchen.", ("peak_memory_mb", "<", 2048.0)),
                                         ("a model file of at most 1 GB", ("model_size_mb", "<=", 1000.0))])
def test_memory_in_gigabytes_counts_binary(said, found):
    text = canonical(said, ()).text
    got = [(c.name, c.op, c.target) for c in parse_constraints(text)]
    assert found in got, (text, got)


def test_memory_said_short():
    got = [(c.name, c.op, c.target) for c in parse_constraints("Container limit: peak mem no more than 1024 MB.")]
    assert ("peak_memory_mb", "<=", 1024.0) in got, got
