"""Classes from the blind batches holdout47 and holdout48, on tables of their own (an asthma clinic's visits and a
police dispatch log, not the batches' tables): words that spell an acronym two names end in ('the peak expiratory
flow' with MinPEF and MeanPEF: whose, not which); an adjective written after its noun and a participle that only
describes ('la glycémie maximale', 'the number of visits recorded'); 'between 2019 and 2021' inside one item; 'wt'
and 'ht' are weight and height; the doer of a passive verb in a whether-question is the question ('whether a call
was started by a 112 call'); a name of two letters is not spelt by words turned round ('bowling average' is no AB);
reasons in parentheses ('(only known at discharge)', '(the dose itself, of which ldose is only the log)'); an 'only'
inside a French compound preposition ('à partir uniquement de'); a size said with 'faire' ('ne doit pas faire plus de
2 Mo'); and an unresolved item whose nearest column is not the one said beside it still asks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def clinic(tmp_path_factory):
    """Asthma clinic visits: the lowest and mean peak flow, glucose, weights of two years, height, visits, a dose."""
    rng = np.random.default_rng(47)
    n = 260
    dose = rng.uniform(1, 20, n).round(2)
    return saved(tmp_path_factory, "asthma_clinic", pd.DataFrame({
        "age": rng.integers(18, 80, n), "MinPEF": rng.normal(300, 60, n).round(0),
        "MeanPEF": rng.normal(380, 60, n).round(0), "glucose": rng.normal(100, 15, n).round(1),
        "wt19": rng.normal(80, 12, n).round(1), "wt21": rng.normal(81, 12, n).round(1),
        "wt21_19": rng.normal(1, 3, n).round(1), "ht": rng.normal(172, 9, n).round(0),
        "visits": rng.integers(1, 12, n), "admitted": rng.integers(0, 2, n), "los": rng.integers(0, 15, n),
        "dose": dose, "ldose": np.log(dose).round(4), "AB": rng.integers(0, 5, n), "AVG": rng.normal(5, 2, n).round(2),
        "exacerbations": rng.integers(0, 6, n)}))


def test_words_spelling_an_acronym_two_names_end_in_ask_which(clinic):
    got = _read(clinic, "Fit a regression that predicts the peak expiratory flow from the other measurements.")
    assert got["outcome"] == "ask" and set(got["candidates"][:2]) == {"MinPEF", "MeanPEF"}, got


def test_the_qualifier_said_with_the_acronym_decides(clinic):
    got = _read(clinic, "Predict the mean peak expiratory flow from age, glucose and visits.")
    assert (got["outcome"], got["target"]) == ("ok", "MeanPEF"), got


def test_both_of_an_acronym_family_are_a_group_of_inputs(clinic):
    got = _read(clinic, "Predict the number of exacerbations using only: age, both peak expiratory flows and glucose.")
    assert got["outcome"] == "ok" and got["features"] == ["MeanPEF", "MinPEF", "age", "glucose"], got


def test_an_adjective_after_its_noun_and_a_describing_participle(clinic):
    got = _read(clinic, "Prédire le nombre d'exacerbations à partir uniquement de : l'âge, le glucose maximal et le "
                        "nombre de visits effectuées.")
    assert got["outcome"] == "ok" and got["features"] == ["age", "glucose", "visits"], got
    got = _read(clinic, "Predict exacerbations from only the age and the number of visits recorded.")
    assert got["outcome"] == "ok" and got["features"] == ["age", "visits"], got


def test_a_size_said_with_faire(clinic):
    got = _read(clinic, "Prédire exacerbations. Le modèle ne doit pas faire plus de 2 Mo.")
    assert got["outcome"] == "ok" and got["constraints"] == ["model_size_mb <= 2"], got


def test_a_span_between_two_years_is_one_item(clinic):
    got = _read(clinic, "Predict exacerbations with every column except the change in weight between 2019 and 2021 "
                        "(wt21_19), because it is measured after the visits.")
    assert got["outcome"] == "ok" and got["excluded"] == ["wt21_19"], got


def test_wt_and_ht_are_weight_and_height(clinic):
    got = _read(clinic, "Could you build a model that predicts a patient's body weight from the rest?")
    assert got["outcome"] == "ask" and {"wt19", "wt21"} <= set(got["candidates"]), got
    got = _read(clinic, "Predict the weight in 2021 from age and height only.")
    assert got["outcome"] == "ok" and (got["target"], got["features"]) == ("wt21", ["age", "ht"]), got


def test_reasons_in_parentheses_inside_a_list_left_out(clinic):
    got = _read(clinic, "Binary classifier, label = admitted. Exclude los (only known at discharge) and exacerbations "
                        "(our system does not keep it).")
    assert got["outcome"] == "ok" and got["excluded"] == ["exacerbations", "los"], got
    got = _read(clinic, "Predict ldose. Every other column may be an input, except dose (the dose itself, of which ldose "
                        "is only the log).")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "ldose", ["dose"]), got


def test_two_letters_turned_round_spell_no_name(clinic):
    got = _read(clinic, "Predict exacerbations from only the age, the visits and the bowling average.")
    assert got["outcome"] == "ask" or "AB" not in got.get("features", []), got


@pytest.fixture(scope="module")
def dispatch(tmp_path_factory):
    rng = np.random.default_rng(48)
    n = 300
    return saved(tmp_path_factory, "dispatch_log", pd.DataFrame({
        "is_112_call": rng.choice(["yes", "no"], n), "sex": rng.choice(["male", "female"], n),
        "district": rng.choice(["north", "south", "east"], n), "units": rng.integers(1, 5, n),
        "force_kind": rng.choice(["none", "hold", "spray"], n),
        "force_kind_detail": rng.choice(["a", "b", "c", "d"], n), "injured": rng.choice(["yes", "no"], n)}))


def test_the_doer_of_a_passive_verb_in_a_whether_question_is_asked_about(dispatch):
    got = _read(dispatch, "Predict whether a dispatch was started by a 112 call.")
    assert (got["outcome"], got["target"]) == ("ok", "is_112_call"), got


def test_an_item_nearest_another_column_than_the_one_said_beside_it_asks(dispatch):
    got = _read(dispatch, "Predict whether a dispatch was started by a 112 call. Don't use what happened on site: "
                          "the kind of force, the particulars of the force action and whether the subject was injured.")
    assert got["outcome"] == "ask" and "force_kind_detail" in got["message"], got


# ---- from the end batch holdout49, on tables of their own (a ferry's monthly passengers kept without dates, a
# cricket club's players)


@pytest.fixture(scope="module")
def ferry(tmp_path_factory):
    """A monthly series kept without dates: a year column (12 rows each), month dummies and a trend."""
    rng = np.random.default_rng(49)
    n = 96
    frame = pd.DataFrame({"year": np.repeat(np.arange(1990, 1998), 12), "t": np.arange(1, n + 1)})
    for k, month in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]):
        frame[month] = (np.arange(n) % 12 == k).astype(int)
    frame["passengers"] = (1000 + 5 * frame.t + 200 * frame.jul + rng.normal(0, 30, n)).round(0)
    frame["lpassengers"] = np.log(frame.passengers).round(4)
    return saved(tmp_path_factory, "ferry_monthly", frame)


def test_a_year_column_of_twelve_rows_each_makes_a_quarter_three_steps(ferry):
    got = _read(ferry, "need the passengers for next quarter for the board deck")
    assert (got["outcome"], got["target"], got["horizon"]) == ("ok", "passengers", 3), got


def test_a_german_size_limit_with_its_verb_last(ferry):
    got = _read(ferry, "Bitte eine Prognose von passengers für die nächsten sechs Monate. Das Modell muss kleiner als "
                       "10 MB sein.")
    assert got["outcome"] == "ok" and got["constraints"] == ["model_size_mb < 10"], got


@pytest.fixture(scope="module")
def cricket(tmp_path_factory):
    rng = np.random.default_rng(50)
    n = 200
    runs = rng.integers(100, 3000, n)
    return saved(tmp_path_factory, "cricket_players", pd.DataFrame({
        "years": rng.integers(1, 15, n), "runs": runs, "hruns": rng.integers(0, 40, n),
        "runsyr": (runs / 5).round(1), "wickets": rng.integers(0, 90, n), "salary": rng.integers(20, 900, n) * 1000,
        "lsalary": rng.normal(12, 1, n).round(3), "clubpop": rng.integers(1000, 90000, n),
        "clubinc": rng.integers(20, 90, n) * 1000}))


def test_a_word_said_before_a_name_of_its_own_spells_the_longer_name(cricket):
    got = _read(cricket, "Could you build a regression model that predicts a player's home runs from the rest?")
    assert (got["outcome"], got["target"]) == ("ok", "hruns"), got


@pytest.mark.parametrize("aside", ["", " (it is the log of salary)", " (its just the log of salary)"])
def test_a_name_said_before_a_lists_heading_is_left_out_too(cricket, aside):
    got = _read(cricket, f"Predict salary. Leave out lsalary{aside} and the club columns: clubpop and clubinc.")
    assert got["outcome"] == "ok" and got["excluded"] == ["clubinc", "clubpop", "lsalary"], got
