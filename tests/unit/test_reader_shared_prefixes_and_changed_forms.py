"""Classes from the blind batch holdout45, on a table of its own (a chess club's games, not the batch's tables):
a word that only begins the names several columns share ('the challenger' with challwin, challscr, chall1st: whose,
not which), said with a word for the rest of one ('whether the challenger won': an irregular past is its verb);
a standardized column asked for by how it is measured ('the final rating, measured in standard deviations' with
final and stdfinl); words a hyphen joins spell one name ('the draw-offered flag' is drwoffr, not draw); a reason in
parentheses inside a list left out ('(same thing)', '(it counts towards it, so it leaks)'); a short form at the end
of two names with different qualifiers asks ('the KFAC' with preKFAC and postKFAC); names said bare, then 'out'.
Also: a percent is the rate a name holds ('the visit percent' vstrte); a value said before an event is the earlier one
('the BMI before the programme' preBMI); a coined name said to be set aside in words no reader took asks. From
holdout44: 'the next year and a half' is 18 months. From holdout46 (the end batch): a 'Target:' heading; a number said
beside a shared beginning says the rest of one name ('unemployed for all of 2020': unemp20); one letter before a
beginning two names share is a change made to them (cfee beside fee19 and fee20); 'only not X' is an exception; a
sentence that opens with 'so only:' lists the inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """Club games: the challenger's rating before, the moves, who won, a draw offered, the final rating."""
    rng = np.random.default_rng(45)
    n = 240
    challelo = rng.normal(1600, 200, n).round(0)
    challscr = rng.integers(0, 3, n)
    final = (challelo + rng.normal(0, 30, n)).round(0)
    return saved(tmp_path_factory, "club_games", pd.DataFrame({
        "challelo": challelo, "oppelo": rng.normal(1600, 200, n).round(0), "challscr": challscr,
        "challwin": (challscr == 2).astype(int), "chall1st": rng.integers(0, 2, n),
        "moves": rng.integers(20, 90, n), "draw": (challscr == 1).astype(int), "drwoffr": rng.integers(0, 2, n),
        "final": final, "stdfinl": ((final - final.mean()) / final.std()).round(3),
        "preKFAC": rng.integers(10, 40, n), "postKFAC": rng.integers(10, 40, n)}))


@pytest.mark.parametrize("said", [
    "Predict whether the challenger won the game.",
    "I need a classifier for whether the challenging player won.",
])
def test_the_rest_of_a_shared_beginning_said_decides(games, said):
    got = _read(games, said)
    assert got["outcome"] == "ok" and got["target"] == "challwin", got


def test_a_shared_beginning_alone_asks(games):
    got = _read(games, "Build a model that predicts whether each game went the challenger's way.")
    assert got["outcome"] == "ask" and {"challwin", "chall1st"} <= set(got["candidates"]), got


@pytest.mark.parametrize("said", [
    "Predict the final rating, measured in standard deviations from the club mean.",
    "Predict the standardized final rating.",
    "Predict the final rating as a z-score.",
])
def test_a_changed_form_asked_by_how_it_is_measured(games, said):
    got = _read(games, said)
    assert got["outcome"] == "ok" and got["target"] == "stdfinl", got


def test_the_plain_column_without_the_change(games):
    got = _read(games, "Predict the final rating.")
    assert got["outcome"] == "ok" and got["target"] == "final", got


def test_words_a_hyphen_joins_spell_one_name(games):
    got = _read(games, "Predict challwin from everything except challscr and the draw-offered flag.")
    assert got["outcome"] == "ok" and got["target"] == "challwin", got
    assert set(got["excluded"]) == {"challscr", "drwoffr"}, got


def test_a_reason_in_parentheses_does_not_end_the_list(games):
    got = _read(games, "Predict stdfinl. Drop the raw final rating (same thing) and the moves (the final depends on it, "
                       "so it leaks).")
    assert got["outcome"] == "ok" and got["target"] == "stdfinl" and set(got["excluded"]) == {"final", "moves"}, got


def test_a_short_form_ending_two_names_asks(games):
    got = _read(games, "Could you predict the player's KFAC from the other information?")
    assert got["outcome"] == "ask" and set(got["candidates"][:2]) == {"preKFAC", "postKFAC"}, got


def test_names_said_bare_then_out(games):
    got = _read(games, "Regress final on the rest. Also stdfinl out, it is the same as the target.")
    assert got["outcome"] == "ok" and got["target"] == "final" and got["excluded"] == ["stdfinl"], got


def test_a_span_and_a_half():
    from automl_agent.agents.understanding.words import normalise

    assert "next 1.5 years" in normalise("a forecast for the next year and a half")
    assert "past 1.5 months" in normalise("over the past month and a half")


@pytest.fixture(scope="module")
def members(tmp_path_factory):
    """Gym members: visits, the share of weeks visited and of classes taken, the BMI before and after a programme."""
    rng = np.random.default_rng(451)
    n = 200
    visits = rng.integers(0, 60, n)
    return saved(tmp_path_factory, "gym_members", pd.DataFrame({
        "visits": visits, "vstrte": (visits / 60 * 100).round(1), "clsrte": rng.uniform(0, 100, n).round(1),
        "preBMI": rng.normal(28, 3, n).round(1), "postBMI": rng.normal(27, 3, n).round(1),
        "weightloss": rng.normal(3, 2, n).round(2)}))


def test_a_percent_is_the_rate_a_name_holds(members):
    """'the visit percent' is vstrte (the visit rate), not visits, which drops a word."""
    got = _read(members, "Predict weightloss from the visit percent and the class percent only.")
    assert got["outcome"] == "ok" and got["features"] == ["clsrte", "vstrte"], got


def test_a_value_before_an_event_is_the_earlier_one(members):
    got = _read(members, "Predict weightloss using only the BMI before the programme and the visit percent.")
    assert got["outcome"] == "ok" and got["features"] == ["preBMI", "vstrte"], got


@pytest.mark.parametrize("said", [
    "Regress final on the rest. Also stdfinl useless, it is the same as the target.",
    "Regress final on everything. stdfinl is a copy of the target.",
])
def test_a_coined_name_set_aside_in_words_no_reader_took_is_never_fed_in_silently(games, said):
    """The net under the readers: a name no dictionary holds, said in a sentence that sets something aside, and fed
    in with every other column all the same, stops the run with a question that names it."""
    got = _read(games, said)
    assert (got["outcome"] == "ask" and "stdfinl" in got["message"]) or "stdfinl" in got.get("excluded", []), got


def test_a_coined_name_described_is_no_question(games):
    got = _read(games, "Regress final on everything; stdfinl is the final standardized.")
    assert got["outcome"] == "ok" and got["target"] == "final", got


@pytest.fixture(scope="module")
def courses(tmp_path_factory):
    """Evening-course students: the fee in two years and its change, unemployment in both years, earnings after."""
    rng = np.random.default_rng(46)
    n = 220
    fee19 = rng.normal(900, 150, n).round(0)
    fee20 = (fee19 * rng.normal(1.05, 0.05, n)).round(0)
    unemp20 = rng.integers(0, 2, n)
    return saved(tmp_path_factory, "evening_courses", pd.DataFrame({
        "enrol": rng.integers(1, 6, n), "fee19": fee19, "fee20": fee20, "cfee": fee20 - fee19,
        "unemp19": rng.integers(0, 2, n), "unemp20": unemp20,
        "earn20": np.where(unemp20 == 1, 0, rng.normal(20000, 5000, n)).round(0)}))


def test_a_heading_says_the_target_and_a_year_says_which(courses):
    got = _read(courses, "Setup:\n- Target: the flag for being unemployed for all of 2020\n- Features: everything else, "
                         "except earn20")
    assert got["outcome"] == "ok" and got["target"] == "unemp20" and got["excluded"] == ["earn20"], got


def test_a_letter_before_a_family_is_a_change_not_a_word(courses):
    got = _read(courses, "Could you train a regression model that predicts the course fee from the rest?")
    assert got["outcome"] == "ask" and {"fee19", "fee20"} <= set(got["candidates"]), got


@pytest.mark.parametrize("said", [
    "Predict cfee. All other columns can go in, just not enrol.",
    "Predict cfee. All other columns may go in, only not enrol.",
])
def test_only_not_is_an_exception(courses, said):
    got = _read(courses, said)
    assert got["outcome"] == "ok" and got["features"] == [] and got["excluded"] == ["enrol"], got


def test_a_sentence_that_opens_with_only_lists_the_inputs(games):
    got = _read(games, "I want to predict the final rating from the game itself. So only: moves and challelo.")
    assert got["outcome"] == "ok" and got["target"] == "final" and got["features"] == ["challelo", "moves"], got
    got = _read(games, "Predict the final rating from the game itself. Only: moves and the opening book depth.")
    assert got["outcome"] == "ask", got
