"""Classes from the blind batch holdout54, on tables of their own. A count said as a rate is not the count: 'the
total fatality rate' fits every rate column of the totfat family (asked), 'per 100 million vehicle miles' spells
totfatpvm, 'per 100,000 residents' spells none of the per- columns and leaves the plain rate; 'total deaths' spells
totfat with a word of the same meaning. A column named after another plus 'sa' is it seasonally adjusted, asked for
by the words unless they say not. 'Keep every other fatality figure out' leaves out the target's family. '- Target:
vhappy' is not undone by a later 'it leaks'. A parenthesis inside an input list glosses one item ('sex (the female
column), black, ...'), and '(55, 65, no limit)' is a list of values, not a column left out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.understanding.transforms import SEASONALLY_ADJUSTED, asked, transform_of
from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    rng = np.random.default_rng(54)
    n = 240
    permits = np.cumsum(rng.normal(0, 1, n)) + 50
    roads = {"year": np.repeat(np.arange(1990, 2010), 12)[:n], "unemp": rng.uniform(3, 10, n).round(1),
             "sl55": rng.integers(0, 2, n), "sl65": rng.integers(0, 2, n), "slnone": rng.integers(0, 2, n),
             "belt": rng.integers(0, 3, n), "vmiles": rng.uniform(10, 60, n).round(1)}
    for family in ("totfat", "nightfat"):
        roads[family] = rng.integers(50, 900, n)
        roads[f"{family}rte"] = rng.uniform(5, 30, n).round(2)
        roads[f"{family}pvm"] = rng.uniform(1, 3, n).round(2)
    survey = {"educ": rng.integers(8, 20, n), "income": rng.integers(1, 13, n), "female": rng.integers(0, 2, n),
              "black": rng.integers(0, 2, n), "workstat": rng.choice(["full", "part", "none"], n),
              "happy": rng.choice(["very happy", "pretty happy", "not too happy"], n),
              "hwbush88": rng.integers(0, 2, n), "hwbush92": rng.integers(0, 2, n)}
    survey["vhappy"] = (survey["happy"] == "very happy").astype(int)
    return {"permits": saved(tmp_path_factory, "permits", pd.DataFrame(
                {"permits": permits.round(2), "permitssa": (permits + rng.normal(0, 0.1, n)).round(2)})),
            "roads": saved(tmp_path_factory, "roads", pd.DataFrame(roads)),
            "survey": saved(tmp_path_factory, "survey", pd.DataFrame(survey))}


def test_a_name_plus_sa_is_the_series_seasonally_adjusted_unless_the_words_say_not():
    assert transform_of("permitssa", "permits") is SEASONALLY_ADJUSTED
    assert transform_of("permits", "permitssa") is None
    assert asked(SEASONALLY_ADJUSTED, "forecast the seasonally adjusted permits")
    assert not asked(SEASONALLY_ADJUSTED, "the raw series, the one that is not seasonally adjusted")
    assert not asked(SEASONALLY_ADJUSTED, "please don't feed it the seasonally adjusted column")


CASES = [  # (table, instruction, what it must give)
    ("permits", "Building permits, one row per month. Forecast the seasonally adjusted permits for the next 6 months.",
     {"outcome": "ok", "target": "permitssa", "horizon": 6}),
    ("permits", "One row per month. I need the raw permits series, the one that is NOT seasonally adjusted, for the "
                "next 6 months; please don't feed it the seasonally adjusted column.",
     {"outcome": "ok", "target": "permits", "horizon": 6}),
    ("roads", "Fit a regression that predicts the total fatality rate from the laws.",
     {"outcome": "ask", "candidates": ["totfatpvm", "totfatrte"]}),
    ("roads", "Predict total deaths per 100 million vehicle miles.", {"outcome": "ok", "target": "totfatpvm"}),
    ("roads", "Predict night fatalities per 100,000 residents.", {"outcome": "ok", "target": "nightfatrte"}),
    ("roads", "Predict total fatalities.", {"outcome": "ok", "target": "totfat"}),
    ("roads", "Predict totfatrte. Keep every other fatality figure out of the inputs - the raw counts, the per-mile "
              "versions and the night rates - they are the same deaths counted differently.",
     {"outcome": "ok", "target": "totfatrte",
      "excluded": ["nightfat", "nightfatpvm", "nightfatrte", "totfat", "totfatpvm"]}),
    ("roads", "Predict totfatpvm using only the speed-limit dummies (55, 65, no limit), plus unemp and the year.",
     {"excluded": []}),
    ("survey", "- Target: vhappy\n- Features: everything else EXCEPT happy - vhappy is literally happy == 'very "
               "happy', so it leaks", {"outcome": "ok", "target": "vhappy", "excluded": ["happy"]}),
    ("survey", "Predict whether the respondent voted for Bush.",
     {"outcome": "ask", "candidates": ["hwbush88", "hwbush92"]}),
    ("survey", "Predict vhappy. Use only these: years of school, family income, sex (the female column), black, "
               "work status.", {"outcome": "ok", "features": ["black", "educ", "female", "income", "workstat"]}),
]


@pytest.mark.parametrize("table, text, wanted", CASES, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(CASES)])
def test_the_reader_on_rates_adjustments_and_families(tables, table, text, wanted):
    got = _read(tables[table], text)
    seen = {key: sorted(got.get(key) or []) if key in ("candidates", "excluded", "features") else got.get(key)
            for key in wanted}
    assert seen == wanted, got
