"""Reader classes found by the blind batch holdout29 (and h28pn01 of holdout28), each on sentences and tables of its
own: a name written without its vowels ('Wgt' for weight); a year said with a measure picks the column whose name
ends in that year; a word of its own is no typo of a column's name ('prison' is not 'person'); 'that outcome is the
X' says which column is asked for; '10 min budget'; 'as input' never reaches back over a question mark; a light verb
starts no abbreviation ('doing a project'); 'atleast'; 'workers in each county' spells no name; 'have to stay out of
the model:' leaves its list out of the target too; 'and also not X' goes on after a reason between; ', do the groups
...' ends a list of inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from tests.unit.reader_cases import read as _read, saved as _saved

N = 400


@pytest.fixture(scope="module")
def orchard(tmp_path_factory):
    """Apple trees measured in three autumns, with their weight of fruit, plot and treatment."""
    rng = np.random.default_rng(11)
    base = rng.uniform(50, 150, N)
    return _saved(tmp_path_factory, "orchard", pd.DataFrame({
        "Plot": rng.integers(1, 30, N), "Hgt95": base.round(1), "Hgt96": (base * 1.2).round(1),
        "Hgt97": (base * 1.4 + rng.normal(0, 5, N)).round(1), "Wgt": rng.uniform(2, 40, N).round(2),
        "Mulch": rng.choice(["bark", "straw", "none"], N), "Scab": rng.integers(0, 2, N)}))


@pytest.fixture(scope="module")
def parole(tmp_path_factory):
    """Released prisoners: whether the crime was against a person, priors, and whether they came back."""
    rng = np.random.default_rng(12)
    return _saved(tmp_path_factory, "parole", pd.DataFrame({
        "person": rng.integers(0, 2, N), "priors": rng.integers(0, 12, N), "age": rng.integers(18, 70, N),
        "county": rng.integers(1, 90, N), "year": rng.integers(1981, 1988, N), "cens": rng.integers(0, 2, N),
        "follow": rng.integers(50, 80, N), "wcon": rng.uniform(200, 500, N).round(1),
        "wfed": rng.uniform(300, 600, N).round(1), "wsta": rng.uniform(300, 600, N).round(1),
        "density": rng.uniform(0, 8, N).round(2), "urban": rng.choice(["yes", "no"], N)}))


def test_a_name_without_its_vowels_and_the_year_said_with_it(orchard):
    got = _read(orchard, "Predict the weight of fruit per tree from the mulch and the plot.")
    assert (got["outcome"], got["target"]) == ("ok", "Wgt")
    got = _read(orchard, "I need the height in autumn 1996 predicted from the mulch and whether the tree had scab.")
    assert (got["outcome"], got["target"]) == ("ok", "Hgt96")
    # the nearest year dates the measure: the other one belongs to the inputs
    got = _read(orchard, "Predict the height in 1997 from the 1995 heights and the mulch.")
    assert (got["outcome"], got["target"]) == ("ok", "Hgt97")
    # no year, no guess
    assert _read(orchard, "Predict the height of each tree from the mulch.")["outcome"] == "ask"


def test_a_word_of_its_own_is_no_typo_and_a_restated_outcome_names_the_column(parole):
    got = _read(parole, "Classify whether a parolee went back to prison within the window; in this table that "
                        "outcome is the censoring indicator. Leave out follow.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "cens", ["follow"])


def test_a_budget_after_its_minutes_and_bound_words_written_together(parole):
    assert [(c.name, c.op, c.target) for c in parse_constraints("Target: cens. 10 min budget.")] == [
        ("training_time_s", "<=", 600.0)]
    got = _read(parole, "predict if the county is urban from density and year, i want it right atleast 70% of the time")
    assert (got["outcome"], got["target"], got["constraints"]) == ("ok", "urban", ["accuracy >= 0.7"])


def test_as_input_stays_in_its_sentence_and_a_light_verb_spells_nothing(orchard):
    got = _read(orchard, "doing a project on this orchard data. can i get a model that guesses how tall the tree is "
                         "in 1997? use evrything else as input")
    assert (got["outcome"], got["target"]) == ("ok", "Hgt97")


def test_a_grouping_spells_no_name(parole):
    got = _read(parole, "Could you predict the weekly wage of public-sector workers in each county from density "
                        "and year?")
    assert got["outcome"] == "ask"


def test_a_list_that_has_to_stay_out_is_no_target(parole):
    got = _read(parole, "The quantity I'm after is how many months they were followed. Two columns have to stay "
                        "out of the model: the county, because it is only an id, and the urban flag.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "follow", ["county", "urban"])


def test_and_also_not_goes_on_after_a_reason(parole):
    got = _read(parole, "I like to classify whether the county is urban or not. Please do not use county and year, "
                        "they are only identifiers, and also not density, because it makes it too easy.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "urban", ["county", "density", "year"])


def test_a_question_after_a_comma_ends_the_list_of_inputs(parole):
    got = _read(parole, "If I cluster the prisoners on nothing but their age and priors, do the groups line up "
                        "with the urban column? Tell me how well they agree.")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "urban", ["age", "priors"])
