"""Reader classes found by the blind batch holdout30, each on sentences and tables of its own: 'better than 55
percent right'; a heading of inputs inside parentheses; a possessive before an abbreviated name ('the clinic's
staff mix' is clstaff); 'a regression of X using ...' says what is asked; names in parentheses after a list of as
many descriptions restate the whole list; ', nothing fancy' ends a list; relapse and recurrence, vital status and
death; a colon after a list of exclusions opens its reason; 'the patient number' is pid; German exam words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.understanding.language import canonical
from tests.unit.reader_cases import read as _read, saved as _saved

N = 400


@pytest.fixture(scope="module")
def clinic(tmp_path_factory):
    """Patients of several clinics: an id, treatment facts, whether the illness came back, whether they died."""
    rng = np.random.default_rng(21)
    return _saved(tmp_path_factory, "clinic", pd.DataFrame({
        "pid": np.arange(1, N + 1), "clinic": rng.integers(1, 20, N), "clstaff": rng.choice(["small", "mixed", "large"], N),
        "dose": rng.uniform(1, 9, N).round(2), "stage": rng.choice(["I", "II", "III"], N), "age": rng.integers(30, 90, N),
        "fuptime": rng.integers(100, 4000, N), "recur": rng.integers(0, 2, N), "death": rng.integers(0, 2, N),
        "cost": rng.uniform(1000, 9000, N).round(0), "cpi": rng.uniform(90, 130, N).round(1)}))


def test_a_share_said_in_percent_and_better_than():
    assert "accuracy more than 55%" in canonical("anything better than 55 percent right is fine", ("stage",)).text
    assert "accuracy at least 70%" in canonical("right 70 per cent of the time", ("stage",)).text


def test_a_heading_in_parentheses_and_a_possessive_before_a_name(clinic):
    got = _read(clinic, "Predict each patient's `stage`. (Inputs: the dose, age, the clinic's staff mix and cpi, "
                        "nothing more; the cost stays out because it is billed after staging.)")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "stage", ["age", "clstaff", "cpi", "dose"])


def test_a_regression_of_and_names_that_restate_a_list(clinic):
    got = _read(clinic, "want a regression of the treatment cost using only the consumer price index and the "
                        "dosage (cpi, dose), nothing fancy")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "cost", ["cpi", "dose"])


def test_relapse_the_patient_number_and_a_reason_after_a_colon(clinic):
    got = _read(clinic, "I need a classifier for whether the illness later relapsed. Please keep out the patient "
                        "number and the vital-status flag: both are recorded after the fact. Everything else may go in.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "recur", ["death", "pid"])


def test_german_exam_words():
    said = canonical("Vorhergesagt werden soll das normierte Prüfungsergebnis der Schülerinnen und Schüler.",
                     ("normexam", "student")).text.lower()
    assert "normalized exam score" in said and "students" in said
