"""Classes from the blind batch holdout43, on a table of its own: a log column asked for by 'the log of' a word that
means the plain column ('the log of the pay' with wage and lwage); a coded name spelt by a phrase whose last word is
noise elsewhere ('the market value' mktval, 'the log of the market value' lmktval); 'exclude it from the features'
after a colon ('lwage is log(wage): exclude it from features'); the answer's kind said before its question ('the one
with yes/no if the person is smoking now'); a status verb in French, German and Spanish ('si cada persona fuma').
From an older corpus's silent mistake (h17cl01): a counted heading said to be all there is, then its list ('on two
proportions only, the depth and the table'), and a clause after the list that begins with a gerund ('keeping the
cut grade away from the algorithm')."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def managers(tmp_path_factory):
    """Managers of listed firms, their pay and their firm's size."""
    rng = np.random.default_rng(43)
    n = 200
    wage = rng.lognormal(6.5, 0.5, n).round(0)
    mktval = rng.lognormal(7.5, 1.0, n).round(0)
    turnover = rng.lognormal(8.0, 1.0, n).round(0)
    return saved(tmp_path_factory, "managers", pd.DataFrame({
        "wage": wage, "lwage": np.log(wage).round(3), "mktval": mktval, "lmktval": np.log(mktval).round(3),
        "turnover": turnover, "lturnover": np.log(turnover).round(3), "yrsboss": rng.integers(0, 30, n),
        "smoker": rng.choice(["yes", "no"], n, p=[0.25, 0.75]), "female": rng.choice(["yes", "no"], n),
        "abroad": rng.choice(["yes", "no"], n)}))


@pytest.mark.parametrize("said, target", [
    ("Predict the log of the pay of each manager.", "lwage"),
    ("I want a model for the logarithm of manager pay.", "lwage"),
    ("Predict the pay of each manager.", "wage"),
    ("Using the log of the turnover, predict the pay.", "wage"),
])
def test_the_log_of_a_word_for_the_plain_column_is_its_log_column(managers, said, target):
    got = _read(managers, said)
    assert got["outcome"] == "ok" and got["target"] == target, got


def test_a_phrase_keeps_the_word_that_ends_a_coded_name(managers):
    got = _read(managers, "Predict the wage using only the log of the turnover, the log of the market value and yrsboss.")
    assert got["outcome"] == "ok" and got["features"] == ["lmktval", "lturnover", "yrsboss"], got
    got = _read(managers, "Predict the wage from the market value, the turnover and yrsboss.")
    assert got["outcome"] == "ok" and got["features"] == ["mktval", "turnover", "yrsboss"], got


@pytest.mark.parametrize("said", [
    "Regress wage. lwage is log(wage): exclude it from features.",
    "Regress wage. Keep lwage out of the inputs.",
])
def test_kept_from_the_features_is_no_item(managers, said):
    got = _read(managers, said)
    assert got["outcome"] == "ok" and got["target"] == "wage" and got["excluded"] == ["lwage"], got


@pytest.mark.parametrize("said", [
    "The column to predict is the one with yes/no if the person is smoking now.",
    "Predict a yes or no answer on whether the manager is smoking.",
    "Necesito clasificar si cada persona fuma o no.",
    "Je voudrais prédire si la personne fume ou non.",
    "Ich möchte vorhersagen, ob die Person raucht.",
])
def test_the_answers_kind_said_before_its_question_and_smoking_in_other_languages(managers, said):
    got = _read(managers, said)
    assert got["outcome"] == "ok" and got["target"] == "smoker", got


@pytest.mark.parametrize("said", [
    "Predict the wage using two columns only: turnover and yrsboss.",
    "Predict the wage with two inputs only, the turnover and yrsboss.",
    "Predict the wage from these two alone: turnover and yrsboss.",
])
def test_a_counted_heading_said_to_be_all_there_is_then_its_list(managers, said):
    got = _read(managers, said)
    assert got["outcome"] == "ok" and got["target"] == "wage" and got["features"] == ["turnover", "yrsboss"], got


def test_a_clause_after_the_list_that_begins_with_a_gerund_is_no_item(managers):
    got = _read(managers, "Cluster the managers on two figures only, the turnover and yrsboss, keeping the smoker flag "
                          "away from the algorithm; afterwards compare the clusters with smoker.")
    assert got["outcome"] == "ok" and got["target"] == "smoker" and got["features"] == ["turnover", "yrsboss"], got


def test_a_clusterings_list_with_an_item_that_names_no_column_asks(managers):
    got = _read(managers, "Group the managers into camps based on turnover, yrsboss and their general abroadness "
                          "stance, then compare the camps with smoker.")
    assert got["outcome"] == "ask" and "abroadness" in got["message"], got
