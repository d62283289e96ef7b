"""Classes from the blind batch holdout51, on tables of their own (a claims register and a quarterly sales series,
not the batch's tables): a list headed by 'everything we only learn once ...:'; a name said with 'its log' inside a
parenthesis ('(days, and its log ldays)'); a fronted object as a reason ('this we know only later'); 'a 3-year
outlook' is the horizon; a window's length in parentheses ('the next 6 quarters (a year and a half)') is no list of
columns; the only series of a table, named in words that read as an input, is still what a forecast predicts; the
German passive put first ('Vorhergesagt werden soll ...') and 'sollen ebenfalls raus'."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def claims(tmp_path_factory):
    rng = np.random.default_rng(51)
    n = 300
    cost, days, wage = rng.gamma(2, 900, n), rng.integers(1, 90, n), rng.uniform(200, 900, n)
    return saved(tmp_path_factory, "claims", pd.DataFrame({
        "age": rng.integers(18, 65, n), "male": rng.integers(0, 2, n), "wage": wage.round(1),
        "lwage": np.log(wage).round(4), "cost": cost.round(0), "lcost": np.log(cost).round(4), "days": days,
        "ldays": np.log(days).round(4), "code": rng.integers(1000, 9999, n), "north": rng.integers(0, 2, n),
        "hosp": rng.integers(0, 2, n)}))


@pytest.fixture(scope="module")
def quarterly(tmp_path_factory):
    quarters = pd.date_range("1990-01-01", periods=120, freq="QS")
    sales = 1000 + 5 * np.arange(120) + 80 * (quarters.quarter == 4) + np.random.default_rng(5).normal(0, 10, 120)
    return saved(tmp_path_factory, "quarterly_sales", pd.DataFrame({"quarter": quarters.strftime("%Y-%m-%d"),
                                                                    "sales": sales.round(1)}))


def test_a_list_headed_by_everything_learnt_later(claims):
    got = _read(claims, "Predict whether the claim needs a hospital stay (hosp). So leave out everything we only "
                        "learn once the claim has run its course: the total cost (cost, and its log lcost) and how "
                        "long it lasted (days, and its log ldays). All the other columns are fine.")
    assert (got["outcome"], got["target"]) == ("ok", "hosp"), got
    assert got["excluded"] == ["cost", "days", "lcost", "ldays"] and got["features"] == [], got


def test_a_fronted_object_gives_the_reason(claims):
    got = _read(claims, "Classify hosp. Please not put the cost columns (cost, lcost) and the duration columns "
                        "(days, ldays), this we know only when the claim is closed. Also take out code.")
    assert got["outcome"] == "ok" and got["excluded"] == ["code", "cost", "days", "lcost", "ldays"], got


def test_an_outlooks_length_is_the_horizon(quarterly):
    got = _read(quarterly, "Quarterly sales: need a 3-year outlook for the board. Answers in under 100 ms.")
    assert (got["outcome"], got["horizon"]) == ("ok", 12), got


def test_a_windows_length_in_parentheses_is_no_list(quarterly):
    got = _read(quarterly, "Quiero pronosticar los próximos seis trimestres (año y medio) de las ventas.")
    assert (got["outcome"], got["target"], got["horizon"]) == ("ok", "sales", 6), got


def test_the_only_series_said_as_what_is_read_is_still_the_target(quarterly):
    got = _read(quarterly, "The file holds our quarterly spending on goods at constant prices. It peaks every "
                           "fourth quarter. I need a projection for the next two years.")
    assert (got["outcome"], got["target"], got["horizon"]) == ("ok", "sales", 8), got


def test_a_german_passive_put_first(claims):
    got = _read(claims, "Vorhergesagt werden soll, ob ein Krankenhausaufenthalt nötig ist (hosp). Die Kosten "
                        "(cost, lcost) liegen zum Zeitpunkt der Vorhersage noch nicht vor und sollen raus; code "
                        "soll ebenfalls raus.")
    assert (got["outcome"], got["target"]) == ("ok", "hosp"), got
    assert got["excluded"] == ["code", "cost", "lcost"], got
