"""Reader classes found by the blind batch holdout31, each on sentences and tables of its own: a series with no time
column whose cadence the instruction gives is forecast in the order of its rows; 'more then 94%'; 'X = a, b - nothing
else' after a sentence; 'the sequence number' is seqno; 'the time to relapse' is the duration, not the flag; '(those
four only)'; 'the food share' is wfood; a negation before a heading of items stays with them; 'give it ten minutes at
the most', 'keep it under 2 hours'; 'what I'd like predicted is ...'; 'X and Y are not needed'."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.contracts import RequirementSpec
from automl_agent.agents.feasibility import check_series
from automl_agent.benchmark.understanding import score
from automl_agent.trainkit.runtime import ordered_series
from tests.unit.reader_cases import read as _read, saved as _saved

N = 300


@pytest.fixture(scope="module")
def yields(tmp_path_factory):
    """Monthly bond yields of three maturities, no date column: the rows are the months, in order."""
    rng = np.random.default_rng(31)
    walk = np.cumsum(rng.normal(0, 0.1, (N, 3)), axis=0) + [3.0, 4.0, 5.0]
    return _saved(tmp_path_factory, "yields", pd.DataFrame(walk.round(3), columns=["y1", "y5", "y30"]))


@pytest.fixture(scope="module")
def customers(tmp_path_factory):
    """Customers with a plan and their spending: no series, whatever the instruction says of months."""
    rng = np.random.default_rng(32)
    return _saved(tmp_path_factory, "customers", pd.DataFrame({
        "plan": rng.choice(["basic", "plus", "pro"], N), "tenure": rng.integers(1, 60, N),
        "visits": rng.integers(0, 30, N), "spend": rng.uniform(10, 500, N).round(2)}))


@pytest.fixture(scope="module")
def households(tmp_path_factory):
    """Household budget shares (w + what is bought), the total spent, the income, the head's age, the children."""
    rng = np.random.default_rng(33)
    shares = rng.dirichlet(np.ones(5), N).round(4)
    return _saved(tmp_path_factory, "households", pd.DataFrame({
        "wfood": shares[:, 0], "wfuel": shares[:, 1], "wcloth": shares[:, 2], "walc": shares[:, 3],
        "wtrans": shares[:, 4], "totexp": rng.uniform(50, 400, N).round(1), "income": rng.uniform(80, 600, N).round(1),
        "age": rng.integers(20, 80, N), "children": rng.integers(0, 4, N)}))


@pytest.fixture(scope="module")
def trial(tmp_path_factory):
    """A trial: a sequence number, the histology read centrally, whether the tumour relapsed and the days until it."""
    rng = np.random.default_rng(34)
    return _saved(tmp_path_factory, "trial", pd.DataFrame({
        "seqno": np.arange(1, N + 1), "histol": rng.integers(1, 3, N), "stage": rng.integers(1, 5, N),
        "age": rng.integers(1, 150, N), "rel": rng.integers(0, 2, N), "edrel": rng.integers(10, 6000, N)}))


def test_a_series_without_a_time_column_is_forecast_in_the_order_of_its_rows(yields):
    got = _read(yields, "The yields table is monthly, one row per month. Forecast y30 for the next 12 months from "
                        "the most recent 24 months.")
    assert (got["outcome"], got["task"], got["target"], got["horizon"], got["lookback"]) == \
        ("ok", "time_series_forecasting", "y30", 12, 24)
    values, steps = ordered_series(pd.read_csv(yields), None, "y30")
    assert len(values) == N and list(steps[:3]) == [0.0, 1.0, 2.0]


def test_without_a_cadence_or_on_a_table_of_customers_the_next_months_are_no_series(yields, customers):
    got = _read(yields, "Forecast y30 for the next 12 steps.")  # asked how far apart the rows are (issue 26, holdout33)
    assert got["outcome"] == "ask" and "no time column" in got["message"] and "how far apart" in got["message"]
    got = _read(customers, "Our data is monthly: predict each customer's spend over the next 12 months.")
    assert got.get("task") != "time_series_forecasting"  # a table of customers is no series (refused or regressed)


def test_the_run_says_the_rows_are_taken_as_steps(yields):
    spec = RequirementSpec.model_validate({
        "user": {"intent": "build", "expertise": "medium"},
        "problem": {"area": "time series", "downstream_task": "time_series_forecasting", "description": "x",
                    "metric": "mae", "pred_seq_len": 12},
        "dataset": {"target": "y30"}})
    notes = check_series(spec, pd.read_csv(yields), "monthly, the next 12 months")
    assert any("rows are taken as the series' steps" in n for n in notes)


def test_a_then_for_than_and_model_notation_after_a_sentence(trial):
    got = _read(trial, "i need to clasify histol using all the other colums. we need more then 94% acuracy")
    assert got["constraints"] == ["accuracy > 0.94"]
    got = _read(trial, "trial data. target rel. X = histol, stage, age - nothing else.")
    assert (got["target"], got["features"]) == ("rel", ["age", "histol", "stage"])


def test_a_sequence_number_and_the_time_until_an_event(trial):
    got = _read(trial, "Predict histol. Leave out the sequence number, the relapse indicator and the time-to-relapse "
                       "column; they come after the fact.")
    assert (got["outcome"], got["excluded"]) == ("ok", ["edrel", "rel", "seqno"])


def test_shares_named_by_what_is_bought_and_a_limit_in_parentheses(households):
    got = _read(households, "Regress totexp on income, age of the head, number of children and the food share "
                            "(those four only).")
    assert (got["outcome"], got["features"]) == ("ok", ["age", "children", "income", "wfood"])
    got = _read(households, "Model the alcohol share. Don't feed it the other spending fractions (food, fuel, clothes "
                            "and transport): they add up to one with it.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "walc", ["wcloth", "wfood", "wfuel", "wtrans"])


def test_what_id_like_predicted_and_what_is_fair_game(households):
    got = _read(households, "What I'd like predicted is the fraction of the budget that goes on drink. The total "
                            "spend, the net income, how old the head of household is and the children are fair game.")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "walc", ["age", "children", "income", "totexp"])


def test_budgets_given_and_kept_to_and_a_sentence_before_them():
    said = {c.name: (c.op, c.target) for c in parse_constraints("Give it ten minutes at the most.")}
    assert said == {"training_time_s": ("<=", 600.0)}
    assert [(c.name, c.target) for c in parse_constraints("keep it under 2 hours")] == [("training_time_s", 7200.0)]
    # the sentence before ('Predict ...') asks for no prediction within the time
    assert [c.name for c in parse_constraints("Predict the price. Give it 10 minutes.")] == ["training_time_s"]
    assert [c.name for c in parse_constraints("keep each prediction under 20 ms")] == ["latency_ms"]


def test_columns_not_needed_stay_out(customers):
    got = _read(customers, "Predict spend from the rest; the plan and the visits are not needed here.")
    assert (got["outcome"], got["excluded"]) == ("ok", ["plan", "visits"])


def test_inputs_said_two_ways_that_give_the_model_the_same_columns_score_alike():
    case = {"id": "x", "class": "c", "expect": {"task": "tab_reg", "target": "y", "metric": "rmse", "constraints": [],
                                                "excluded": ["d"]}}
    got = {"outcome": "ok", "task": "tabular_regression", "target": "y", "metric": "rmse", "constraints": [],
           "features": ["a", "b", "c"], "excluded": []}
    assert score(case, got, ["a", "b", "c", "d", "y"]).understood
    assert not score(case, got, ["a", "b", "c", "d", "e", "y"]).understood
    assert not score(case, got).understood


# classes found by the second blind batch holdout32, each on words of its own


@pytest.fixture(scope="module")
def larvae(tmp_path_factory):
    """Larvae: their stage, mass, intake and frass (wet and dry, raw and logged), assimilation, two yes/no flags."""
    rng = np.random.default_rng(35)
    return _saved(tmp_path_factory, "larvae", pd.DataFrame({
        "Stage": rng.integers(1, 6, N), "Mass": rng.uniform(0.1, 9, N).round(3), "Intake": rng.uniform(0.1, 2, N).round(3),
        "WetFrass": rng.uniform(0.1, 2, N).round(3), "DryFrass": rng.uniform(0.01, 0.5, N).round(3),
        "LogIntake": rng.normal(-0.3, 0.3, N).round(3), "Cassim": rng.uniform(0, 1, N).round(3),
        "LogCassim": rng.normal(-1, 0.3, N).round(3), "Feeding": rng.choice(["Y", "N"], N),
        "Fgp": rng.choice(["Y", "N"], N)}))


@pytest.fixture(scope="module")
def labs(tmp_path_factory):
    """Lab values before (.B) and after (.M) treatment in four dose arms."""
    rng = np.random.default_rng(36)
    return _saved(tmp_path_factory, "labs", pd.DataFrame({
        "ALP.B": rng.uniform(40, 120, N).round(1), "ALT.B": rng.uniform(10, 60, N).round(1),
        "ALP.M": rng.uniform(40, 140, N).round(1), "ALT.M": rng.uniform(10, 90, N).round(1),
        "TBL.M": rng.uniform(3, 20, N).round(1), "dose": rng.choice(["A", "B", "C", "D"], N)}))


def test_a_question_item_keeps_its_verb_and_an_amount_of_several_columns_asks(larvae):
    got = _read(larvae, "I'd like a model of how much frass each larva produces, based on its mass, its stage and "
                        "whether it is feeding.")
    assert got["outcome"] == "ask" and {"WetFrass", "DryFrass"} <= set(got["candidates"])


def test_a_family_of_columns_named_by_a_word_inside_their_names(larvae):
    got = _read(larvae, "Regress LogIntake. Keep out Intake, it is the same number unlogged, and no assimilation "
                        "columns either.")
    assert (got["outcome"], got["excluded"]) == ("ok", ["Cassim", "Intake", "LogCassim"])


def test_a_misspelt_using_and_a_heading_of_yes_no_columns(larvae):
    got = _read(larvae, "group the larvae into 5 clusters useing only Mass and Intake, then compare with Stage")
    assert (got["task"], got["features"]) == ("tabular_clustering", ["Intake", "Mass"])
    got = _read(larvae, "Predict Stage from Mass, Intake and the two yes/no columns Feeding and Fgp.")
    assert (got["outcome"], got["features"]) == ("ok", ["Feeding", "Fgp", "Intake", "Mass"])


def test_dotted_names_said_not_to_be_used_with_a_reason_after_a_colon(labs):
    got = _read(labs, "Build a regression for ALP.M from the baseline labs and the dose arm. ALT.M and TBL.M must not "
                      "be used: they come from the same blood draw as the target.")
    assert (got["outcome"], got["excluded"]) == ("ok", ["ALT.M", "TBL.M"])


def test_groups_a_column_names_and_a_share_put_in_the_right_group(labs):
    got = _read(labs, "Could a model tell which of the four dose groups a patient was in? I don't need anything "
                      "fancy: if it gets at least 30 percent of patients into the right dose group, fine. Don't spend "
                      "more than ten minutes on training.")
    assert (got["outcome"], got["task"], got["target"]) == ("ok", "tabular_classification", "dose")
    assert got["constraints"] == ["accuracy >= 0.3", "training_time_s <= 600"]
