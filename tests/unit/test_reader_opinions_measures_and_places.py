"""Reader classes found by the blind batch holdout27, each on sentences and tables of its own: the subject of a
yes/no question ends at a verb of opinion ('whether the voter thinks smoking should be banned'); 'how important X is'
and 'how old the house is' are the measures they ask about; 'whether they live in an urban or a rural area' is the
urban column; an identifier in CamelCase ('TripID'); a place after 'distance' is where it is measured from, and a
word describing a column is no limit ('the trip ID is only a label'); a rate's unit between a number and 'or
better'; 'which brand of X he had on', 'whether the sale was after 2010'; a school 'project' is no forecast; a run
of 'no X' items; 'just' after a verb of being; restated names and a plural heading in parentheses; French, German
and Spanish shares of right answers; and the corpus score that treats a column left out twice as left out once."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.understanding.language import canonical
from automl_agent.benchmark.understanding import score
from automl_agent.data.profile import profile_table
from tests.unit.reader_cases import read as _read, saved as _saved

N = 400


@pytest.fixture(scope="module")
def poll(tmp_path_factory):
    """A survey: two opinions, demographics, design variables."""
    rng = np.random.default_rng(7)
    return _saved(tmp_path_factory, "poll", pd.DataFrame({
        "RespondentID": np.arange(1, N + 1), "smoking_ban": rng.choice(["yes", "no"], N, p=[0.6, 0.4]),
        "churchgoing": rng.choice(["never", "sometimes", "weekly"], N), "age": rng.integers(18, 90, N),
        "urban": rng.choice(["urban", "rural"], N), "region": rng.choice(list("NSEW"), N),
        "weight": rng.uniform(0.5, 2, N).round(3)}))


@pytest.fixture(scope="module")
def trips(tmp_path_factory):
    """Delivery trips: a trip ID, distances, the van, whether it was after 2010, how long it took."""
    rng = np.random.default_rng(8)
    miles = rng.uniform(1, 30, N).round(2)
    return _saved(tmp_path_factory, "trips", pd.DataFrame({
        "TripID": np.arange(1, N + 1), "Miles": miles, "Lateral": rng.uniform(0, 80, N).round(2),
        "Altitude": rng.uniform(0, 12, N).round(2), "VanBrand": rng.choice(["Ford", "Fiat", "VW"], N),
        "After2010": rng.integers(0, 2, N), "MinutesPerMile": (rng.normal(3, 0.3, N)).round(3),
        "TimeMin": (miles * 3 + rng.normal(0, 2, N)).round(1), "Late": rng.integers(0, 2, N)}))


def test_the_question_after_a_verb_of_opinion_is_the_target(poll):
    got = _read(poll, "Train a classifier for whether the voter thinks smoking should be banned. Inputs: age, region "
                      "and whether they live in an urban or a rural area.")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "smoking_ban", ["age", "region", "urban"])


def test_how_important_and_how_old_are_the_measures_they_ask_about():
    assert "the importance of church in their life" in canonical(
        "Inputs: how important church is in their life, age and region.", ("importance", "age", "region")).text
    assert "the age of the house" in canonical("Predict the price from how old the house is and the rooms.",
                                               ("age", "price", "rooms")).text


def test_an_identifier_named_in_camel_case_is_one(trips):
    profile = profile_table(pd.read_csv(trips), trips)
    assert profile.column("TripID").kind == "identifier"


def test_a_distance_is_not_the_place_it_is_measured_from_and_a_label_is_no_limit(trips):
    got = _read(trips, "Predict whether the trip is late from the drone's altitude and its lateral distance from the "
                       "depot, nothing else. The trip ID is only a label.")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "Late", ["Altitude", "Lateral"])


def test_yes_no_and_which_items_name_their_columns_and_a_rate_unit_keeps_or_better(trips):
    got = _read(trips, "I'd like to predict the minutes per mile from just three things: how many miles the trip "
                       "was, which brand of van he had on, and whether the trip was after 2010. An RMSE of 0.3 "
                       "min/mile or better.")
    assert (got["target"], got["features"], got["constraints"]) == (
        "MinutesPerMile", ["After2010", "Miles", "VanBrand"], ["rmse <= 0.3"])


def test_a_school_project_is_no_forecast_and_a_share_of_trips_classified_correctly_is_accuracy(tmp_path_factory):
    rng = np.random.default_rng(9)
    dated = _saved(tmp_path_factory, "dated", pd.DataFrame({
        "Date": pd.date_range("2008-01-01", periods=N, freq="D").strftime("%m/%d/%Y"),
        "Miles": rng.uniform(1, 20, N).round(1), "After2009": (np.arange(N) > 365).astype(int)}))
    got = _read(dated, "for my class project i want to predict whether a trip happened after 2009 or not (the "
                       "After2009 column), not using the date. id like at least 70% of the trips classifed correctly")
    assert (got["task"], got["target"], got["constraints"]) == (
        "tabular_classification", "After2009", ["accuracy >= 0.7"])


def test_a_run_of_no_items_and_just_after_a_verb_of_being_leave_columns_out(trips):
    got = _read(trips, "Predict the miles using only TimeMin. No altitude, no vans, nothing else.")
    assert (got["features"], got["excluded"]) == (["TimeMin"], ["Altitude", "VanBrand"])
    got = _read(trips, "Predict whether the trip is late. The Altitude and Lateral columns are just noise so drop "
                       "those too.")
    assert got["excluded"] == ["Altitude", "Lateral"]


def test_names_restated_in_parentheses_and_a_plural_heading_with_its_items(trips):
    got = _read(trips, "Predict whether the trip is late, using only the positions (distance sideways and height, "
                       "i.e. Lateral and Altitude).")
    assert got["features"] == ["Altitude", "Lateral"]
    said = canonical("Use only the two raw distances in miles (to the depot, to the port).", ("Miles",)).text
    assert "distance to the depot, distance to the port" in said


@pytest.mark.parametrize("text", [
    "Pour ce modèle de classification, il me faut au moins 70 % de bonnes réponses.",
    "Für das Modell brauche ich bitte mindestens 70 % richtige Antworten, nicht weniger.",
    "Para este modelo de clasificación necesito al menos 70 % de aciertos, por favor."])
def test_a_share_of_right_answers_in_other_languages_is_accuracy(text):
    said = canonical(text).text
    assert [(c.name, c.op, c.target) for c in parse_constraints(said)] == [("accuracy", ">=", 0.7)]


def test_a_column_left_out_beside_the_same_inputs_list_scores_as_left_out_once():
    case = {"id": "x", "class": "c", "expect": {"task": "tab_reg", "target": "y", "metric": "rmse", "constraints": [],
                                                "features": ["a"]}}
    got = {"outcome": "ok", "task": "tabular_regression", "target": "y", "metric": "rmse", "constraints": [],
           "features": ["a"], "excluded": ["b"]}
    assert score(case, got).understood
    assert not score(case, {**got, "excluded": ["a"]}).understood


# classes found by the blind batch holdout28, each on words of its own


@pytest.fixture(scope="module")
def attempts(tmp_path_factory):
    """Records of attempts: an ID, whether it was treated, whether it was fatal, who, how, where on a grid."""
    rng = np.random.default_rng(10)
    return _saved(tmp_path_factory, "attempts", pd.DataFrame({
        "Record_ID": np.arange(1, N + 1), "Treated": rng.choice(["yes", "no"], N), "Died": rng.choice(["yes", "no"], N),
        "Sex": rng.choice(["female", "male"], N), "Age": rng.integers(15, 90, N), "Row": rng.integers(1, 20, N),
        "Col": rng.integers(1, 20, N), "income": rng.integers(100, 900, N), "hours": rng.integers(0, 3000, N)}))


def test_a_not_in_a_relative_clause_describes_the_rows_and_fatal_is_died(attempts):
    got = _read(attempts, "I need a model that predicts whether an attempt was fatal. Leave out Record_ID and also "
                          "Treated: everyone who was not treated died, so it gives the answer away.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "Died", ["Record_ID", "Treated"])


def test_a_column_named_like_rows_is_left_out_by_name(attempts):
    got = _read(attempts, "Classifier for Died. Drop Row/Col, they are only positions on the ward's grid.")
    assert sorted(got["excluded"]) == ["Col", "Row"]


def test_who_says_why_is_a_reason_and_a_limit_heading_keeps_its_list(attempts):
    got = _read(attempts, "I want predict the hours, use all other columns but not income, my supervisor thinks it "
                          "is endogenous.")
    assert (got["target"], got["excluded"]) == ("hours", ["income"])
    got = _read(attempts, "Classifier for Died. Inputs (nothing else): Sex, Age. (Time limit: 4 minutes.)")
    assert (got["features"], got["constraints"]) == (["Age", "Sex"], ["training_time_s <= 240"])


@pytest.mark.parametrize("text,bound", [
    ("We judge it by mean absolute error; anything under 120 is acceptable.", ("mae", "<", 120.0)),
    ("We judge it by RMSE; anything above 3 is not acceptable.", ("rmse", "<=", 3.0)),
    ("We judge it by accuracy; anything below 0.7 will not be signed off.", ("accuracy", ">=", 0.7)),
    ("The training must not take more than 6 minutes.", ("training_time_s", "<=", 360.0))])
def test_what_is_accepted_or_may_not_happen_states_the_bound(text, bound):
    assert [(c.name, c.op, c.target) for c in parse_constraints(canonical(text).text)] == [bound]


def test_a_german_relative_clause_and_a_french_ceiling_are_read():
    said = canonical("Bitte alle übrigen Spalten als Eingaben außer dem Einkommen (income), das sagt über die Stunden "
                     "nichts aus, und das Training sollte höchstens zwei Minuten dauern.", ("income", "hours")).text
    assert ", which " in said
    said = canonical("Je veux prédire les heures, et l'entraînement ne doit pas dépasser trois minutes, merci.").text
    assert [(c.name, c.op, c.target) for c in parse_constraints(said)] == [("training_time_s", "<=", 180.0)]
