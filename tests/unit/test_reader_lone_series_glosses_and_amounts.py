"""Classes from the blind batch holdout55, on tables of their own. A table of one column of numbers is a series a
forecast reads in row order (it was refused: 'no column besides the target'); 'half-hourly', 'one reading every 15
minutes' say the step; 'there is no date column' leaves nothing out; 'if she renewed last year or not (renewed)' is
the column, its 'or not' negates nothing; 'in the model' is no verb 'model'; 'no timestamp column, value column
mw' of a one-column series leaves nothing out; 'how much each member exercised' of a
0/1 column asks which amount, 'how fast the puck goes' asks among the speeds, not puckcount; the request's verb spells no name ('predicts the capital' is no pcap); a name in
parentheses with its unit ('(gsp, in millions of dollars)') names the column the words before it describe."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    rng = np.random.default_rng(55)
    n = 1200
    steps = np.arange(n)
    load = 30000 + 5000 * np.sin(2 * np.pi * steps / 48) + rng.normal(0, 300, n)
    age = rng.integers(20, 70, n)
    members = {"renewed": rng.integers(0, 2, n), "age": age, "agesq": age * age, "visits": rng.integers(0, 40, n),
               "exercised": rng.integers(0, 2, n), "hours": rng.integers(0, 300, n), "weeks": rng.integers(0, 52, n),
               "kids": rng.integers(0, 4, n)}
    members["puckcount"], members["shotspeed"], members["passspeed"] = (rng.integers(1, 60, n), rng.uniform(20, 40, n),
                                                                         rng.uniform(15, 35, n))
    states = {"state": rng.choice(["ohio", "iowa", "utah"], n), "year": rng.integers(1970, 1987, n),
              "pcap": rng.uniform(1e3, 5e4, n).round(), "pc": rng.uniform(1e3, 9e4, n).round(),
              "gsp": rng.uniform(1e3, 9e4, n).round(), "emp": rng.uniform(100, 9000, n).round(),
              "unemp": rng.uniform(2, 12, n).round(1)}
    return {"load": saved(tmp_path_factory, "load", pd.DataFrame({"mw": load.round(1)})),
            "members": saved(tmp_path_factory, "members", pd.DataFrame(members)),
            "states": saved(tmp_path_factory, "states", pd.DataFrame(states))}


CASES = [  # (table, instruction, what it must give)
    ("load", "Half-hourly electricity demand, no timestamp column, value column mw. Forecast the next day.",
     {"outcome": "ok", "task": "time_series_forecasting", "target": "mw", "horizon": 48}),
    ("load", "One reading every 15 minutes (there is no date column). Forecast mw for the next 2 hours.",
     {"outcome": "ok", "task": "time_series_forecasting", "horizon": 8, "excluded": []}),
    ("members", "I want predict if the member renewed last year or not (renewed). Also remove kids, we don't want "
                "visits in the model, and agesq because it is only age*age.",
     {"understood target": "renewed"}),
    ("members", "Could you build a regression model that predicts how much each member exercised, using the other "
                "columns?", {"outcome": "ask", "candidates": ["hours", "weeks"]}),
    ("members", "Predict how fast the puck goes, from the other columns.",
     {"outcome": "ask", "candidates": ["passspeed", "shotspeed"]}),
    ("states", "Can you train a regression model that predicts the capital stock of each state?",
     {"outcome": "ask"}),
    ("states", "I'd like a model of gross state product (gsp, in millions of dollars) from the other columns.",
     {"outcome": "ok", "target": "gsp"}),
]


@pytest.mark.parametrize("table, text, wanted", CASES, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(CASES)])
def test_the_reader_on_lone_series_glosses_and_amounts(tables, table, text, wanted):
    got = _read(tables[table], text)
    # ('understood target': the target, whether the run goes on or asks about something else, as its message says)
    said = re.search(r"of '([^']+)'", got.get("message", "")) if got["outcome"] == "ask" else None
    seen = {key: (set(wanted[key]) <= set(got.get(key) or []) and wanted[key]) if key == "candidates"
            else sorted(got.get(key) or []) if key == "excluded"
            else (got.get("target") or (said and said.group(1))) if key == "understood target"
            else got.get(key) for key in wanted}
    assert seen == wanted, got
