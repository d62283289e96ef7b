"""Reader classes found by the blind batch holdout40, each on sentences and tables of its own: the data's own name
said as the data's ('the minwage data', 'wooldridge::minwage', 'la table minwage du paquet wooldridge') names no
column, though a column shares it; two words a few words apart whose beginnings make a name ('did ever use a birth
control method' for usemeth), and a three-letter name's initials only from words side by side; a column and its log
(cpi, lcpi) fit alike: the plain one unless the words say log; 'au plus 512 Mo de mémoire'."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.understanding.language import canonical, data_names
from tests.unit.reader_cases import read as _read


@pytest.fixture(scope="module")
def wages(tmp_path_factory):
    """Monthly wage series whose file is named after one of its columns."""
    rng = np.random.default_rng(101)
    n = 300
    cpi = 20 + np.cumsum(rng.uniform(0, 0.2, n))
    frame = pd.DataFrame({"month": pd.date_range("1970-01-01", periods=n, freq="MS").strftime("%Y-%m"), "minpay": np.repeat([0.4, 0.75, 1.0, 1.25, 1.6], n // 5), "unemp": 5 + rng.normal(0, 1, n).cumsum() / 10,
                          "cpi": cpi.round(2), "lcpi": np.log(cpi).round(4), "emp511": 900 + rng.normal(0, 5, n).cumsum(),
                          "wage511": 1 + rng.uniform(0, 0.01, n).cumsum()})
    path = tmp_path_factory.mktemp("wages") / "econ__minpay.csv"
    frame.to_csv(path, index=False)
    return str(path)


@pytest.fixture(scope="module")
def women(tmp_path_factory):
    """A fertility survey: children born, alive, whether a method was ever used, the first marriage's age."""
    rng = np.random.default_rng(102)
    n = 500
    path = tmp_path_factory.mktemp("women") / "women.csv"
    pd.DataFrame({"age": rng.integers(15, 50, n), "educ": rng.integers(0, 16, n), "chborn": rng.integers(0, 9, n),
                  "alive": rng.integers(0, 8, n), "usemeth": rng.integers(0, 2, n), "agefirst": rng.integers(14, 30, n),
                  "urban": rng.integers(0, 2, n)}).to_csv(path, index=False)
    return str(path)


def test_the_names_a_data_file_goes_by():
    assert data_names("/data/econ__minpay.csv") == ("econ__minpay", "econ", "minpay")
    assert data_names("/x/sales-2024.csv.gz")[0] == "sales-2024" and data_names(None) == ()


@pytest.mark.parametrize("said", ["Using the minpay data from econ, forecast the unemployment rate 12 months ahead.",
                                  "econ::minpay, y=unemp, h=12",
                                  "Je voudrais prévoir le chômage (unemp) pour les douze prochains mois, table minpay du "
                                  "paquet econ."])
def test_the_datas_own_name_is_no_column(wages, said):
    got = _read(wages, said)
    assert got["outcome"] == "ok" and got["target"] == "unemp" and got["horizon"] == 12, got


def test_a_column_said_by_its_name_is_still_the_column(wages):
    got = _read(wages, "Forecast minpay for the next 6 months.")
    assert got["outcome"] == "ok" and got["target"] == "minpay", got


def test_a_column_and_its_log(wages):
    plain = _read(wages, "Forecast the consumer price index for the next 3 months.")
    assert plain["outcome"] == "ok" and plain["target"] == "cpi", plain
    logged = _read(wages, "Forecast the log of the consumer price index for the next 3 months.")
    assert logged["outcome"] == "ok" and logged["target"] == "lcpi", logged


def test_the_beginnings_of_words_apart_make_a_name(women):
    got = _read(women, "Classify whether she has ever used a modern contraceptive method. Accuracy at least 70%.")
    assert got["outcome"] == "ok" and got["target"] == "usemeth", got


@pytest.mark.parametrize("said, found", [
    ("Bonjour, je voudrais prévoir le cpi ; le modèle ne doit pas utiliser plus de 512 Mo de mémoire.",
     ("peak_memory_mb", "<=", 512.0)),
    ("the model must not use more than 1 GB of RAM", ("peak_memory_mb", "<=", 1024.0)),
    ("the saved model may be at most 5 MB", ("model_size_mb", "<=", 5.0))])
def test_memory_said_in_french_and_what_a_model_uses(said, found):
    assert [(c.name, c.op, c.target) for c in parse_constraints(canonical(said, ("cpi",)).text)] == [found]
