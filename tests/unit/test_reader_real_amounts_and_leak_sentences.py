"""Reader classes found by the second blind batch of stop 45, holdout26, each on sentences and tables of its own:
'how often they went to the doctor' is the visits column; 'the number of days the person was observed'; a time
bound in its own clause after a metric ('60% accuracy, and no more than 3 minutes of training'); a column said not to
be used beside an inputs list is out with the rest, not excluded twice; 'bc' before a reason; an amount in one
year's money is the real one (rprice), 'the log of that' the log of the item before (lrprice); a leak sentence ('...,
these leak the answer, so they must be removed'); 'a 28-day lag window'; a price in two forms, then 'a regression for
it', asks; Spanish adjectives after their noun; 'the number of baths' is baths, not nbh."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.understanding.language import canonical
from automl_agent.agents.understanding.windows import requested_windows
from tests.unit.reader_cases import read as _read, saved as _saved

N = 300



def _table(tmp_path_factory, name: str, columns) -> str:
    return _saved(tmp_path_factory, name, pd.DataFrame(columns(np.random.default_rng(len(name)))))


@pytest.fixture(scope="module")
def patients(tmp_path_factory):
    """Patients of a clinic study: how often they saw a doctor, how long they were followed, who they are."""
    return _table(tmp_path_factory, "patients", lambda rng: {
        "visits": rng.poisson(2, N), "exposure": rng.integers(30, 365, N), "age": rng.integers(18, 90, N),
        "income": rng.integers(5000, 90000, N), "enrolled": rng.choice(["yes", "no"], N),
        "married": rng.choice(["yes", "no"], N, p=[0.25, 0.75]), "children": rng.integers(0, 6, N),
        "health": rng.normal(0, 1, N).round(3)})


@pytest.fixture(scope="module")
def homes(tmp_path_factory):
    """Home sales: the price as paid, in one base year's money, and their logs; distances; baths; the neighbourhood."""
    def columns(rng):
        price = rng.integers(40000, 300000, N)
        rprice = (price * 0.8).round(0)
        return {"price": price, "lprice": np.log(price).round(4), "rprice": rprice, "lrprice": np.log(rprice).round(4),
                "dist": rng.integers(2000, 40000, N), "ldist": rng.uniform(7.5, 10.6, N).round(4),
                "nearinc": rng.integers(0, 2, N), "baths": rng.integers(1, 4, N), "nbh": rng.integers(0, 7, N),
                "rooms": rng.integers(4, 10, N), "year": rng.choice([1978, 1981], N)}
    return _table(tmp_path_factory, "homes", columns)


def test_going_to_the_doctor_and_days_observed_name_their_columns(patients):
    got = _read(patients, "Model how often each patient went to the doctor. Use everything except the number of days "
                          "the patient was observed.")
    assert (got["target"], got["excluded"]) == ("visits", ["exposure"])


def test_a_time_bound_in_its_own_clause_after_a_metric():
    bounds = [(c.name, c.op, c.target) for c in parse_constraints(
        "We need at least 60% accuracy, and please no more than 3 minutes of training.")]
    assert bounds == [("accuracy", ">=", 0.6), ("training_time_s", "<=", 180.0)]
    assert [(c.name, c.op, c.target) for c in parse_constraints("MAE under 10 minutes")] == [("mae", "<", 10.0)]


def test_an_exclusion_beside_an_inputs_list_is_out_with_the_rest(patients):
    got = _read(patients, "Predict visits. Restrict the inputs to: age, income and the number of children. Leave "
                          "everything else out, in particular how long they were observed.")
    assert (got["features"], got["excluded"]) == (["age", "children", "income"], [])


def test_bc_before_a_reason_is_because(patients):
    got = _read(patients, "predict if they are married. leave out the number of kids in the houshold bc thats "
                          "kind of cheating lol")
    assert (got["target"], got["excluded"]) == ("married", ["children"])


def test_an_amount_in_one_years_money_is_the_real_one_and_the_log_of_that(homes):
    said = canonical("except the other prices: the log price, the price in 1990 dollars and the log of that").text
    assert "the real price, and the log of the real price" in said
    got = _read(homes, "A model of the sale price as paid. Use everything except the other versions of the price: "
                       "the log price, the price in 1978 dollars and the log of that.")
    assert (got["target"], got["excluded"]) == ("price", ["lprice", "lrprice", "rprice"])


def test_a_leak_sentence_after_a_list_and_the_nearest_list_it_points_back_to(homes):
    got = _read(homes, "Classify whether a home is near the incinerator (within 3 miles, the nearinc flag). Please "
                       "use all other columns, but: the distance from the house to the incinerator and its log "
                       "ldist, these leak the answer, so they must be removed.")
    assert (got["target"], got["excluded"]) == ("nearinc", ["dist", "ldist"])


def test_a_lag_window_said_with_its_length():
    assert requested_windows("daily sales -> one week ahead, day by day, 28-day lag window", 86400) == (28, 7)


def test_a_price_in_two_forms_then_a_regression_for_it_asks(homes):
    got = _read(homes, "the table has the sale price in two forms, once as paid and once in 1978 dollars. my boss "
                       "wants a regression for it.")
    assert got["outcome"] == "ask" and {"price", "rprice"} <= set(got["candidates"])


def test_spanish_adjectives_after_their_noun_and_a_word_that_is_a_whole_name(homes):
    assert "the built area" in canonical("Quiero predecir el precio usando solo la superficie construida.").text
    got = _read(homes, "Predict the price from just three things: the number of baths, the number of rooms and the "
                       "year.")
    assert got["features"] == ["baths", "rooms", "year"]
