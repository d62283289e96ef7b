"""Rules of the target decision and the request check that the corpora exercise only in passing, each on a sentence
of its own."""

from __future__ import annotations

import pytest

from automl_agent.agents.understanding import decide_target, held_labels
from automl_agent.agents.understanding.request import asks_for_something_else
from automl_agent.benchmark.understanding import profile_of


@pytest.mark.parametrize(("data", "instruction", "expected"), [
    ("diamonds", "how much is a 1.2 carat ideal diamond worth?", "price"),  # a value given is an input
    ("churn", "I need to know if a senior citizen customer is going to churn", "churn"),  # subject of the question
    ("smokeban", "Predict whether a workplace has a smoking ban from the workers' answers.", "ban"),  # head noun
    ("matches", "Will the home team win?", "outcome"),
    ("retail", "Will the customer send this order back?", "Returned"),  # phrasal verb with words between
    ("loans", "the probability that the borrower won't pay us back", "Defaulted"),
    ("patients", "Use DiabetesDiagnosis as the label and everything else as features.", "DiabetesDiagnosis"),
])
def test_the_column_meant_is_chosen(data, instruction, expected):
    assert decide_target(instruction, profile_of(data)).column == expected


def test_values_many_columns_share_do_not_outweigh_the_column_named(tmp_path):
    from automl_agent.data.inputs import read_input

    rows = [f"{('Oui', 'Non')[i % 2]},{('Oui', 'Non')[i % 3 % 2]},{('Oui', 'Non')[i % 5 % 2]},{i % 70}" for i in range(80)]
    path = tmp_path / "clients.csv"
    path.write_text("churn,online_backup,tech_support,tenure\n" + "\n".join(rows))
    _, profile = read_input(str(path))
    assert decide_target("Predict customer churn (the churn column: Oui or Non)", profile).column == "churn"
    assert decide_target("Predict Oui or Non", profile).ask  # values alone still ask


def test_a_column_is_named_by_its_place_in_a_file_without_names(tmp_path):
    from automl_agent.data.inputs import read_input

    path = tmp_path / "concrete.csv"
    path.write_text("\n".join(f"{i * 7 % 11},{i * 2 % 7},{i % 5},{i * 3.5}" for i in range(60)))
    _, profile = read_input(str(path))
    assert decide_target("Predict the strength: it is the last column (no header row)", profile).column == "column_4"
    assert decide_target("the target is the 2nd column", profile).column == "column_2"
    assert decide_target("predict column 3", profile).column == "column_3"
    assert decide_target("predict the strength, but don't use the last column", profile).column != "column_4"


@pytest.mark.parametrize(("data", "instruction"), [
    ("insurance", "Predict from age and sex."),  # only inputs named
    ("penguins", "Predict the length."),  # two lengths
    ("students", "Predict the exam result of each student."),  # three scores
])
def test_an_unclear_target_is_a_question(data, instruction):
    decision = decide_target(instruction, profile_of(data))
    assert decision.ask and decision.column is None and len(decision.candidates) >= 2


def test_held_labels_for_clustering_are_taken_only_when_asked_for():
    penguins = profile_of("penguins")
    assert held_labels("Cluster the penguins and compare the groups with the species.", penguins) == "species"
    assert held_labels("Cluster the penguins; don't use the species labels at all.", penguins) is None
    assert held_labels("Segment the penguins by island.", penguins) is None


@pytest.mark.parametrize(("instruction", "refused"), [
    ("send the results to bob", True),
    ("please email me the model", True),
    ("give me the names and addresses of the diabetic patients", True),
    ("plot the rentals per hour as a bar chart", True),
    ("will the customer send this order back?", False),
    ("predict which customers will send a complaint to support", False),
    ("how late will the flight be?", False),
    ("predict the weather tomorrow", False),
])
def test_errands_and_lookups_are_told_apart_from_predictions(instruction, refused):
    assert asks_for_something_else(instruction) is refused


def test_a_column_said_not_to_be_used_is_not_the_target_a_tie_asks_about(tmp_path):
    from automl_agent.agents.brains.offline import understood_target
    from automl_agent.data.inputs import read_input

    rows = [f"{i % 17 - 5},{i % 13 - 4},{600 + i % 300},{700 + i % 290},{('UA', 'AA', 'DL')[i % 3]}" for i in range(120)]
    path = tmp_path / "flights.csv"
    path.write_text("dep_delay,arr_delay,dep_time,arr_time,carrier\n" + "\n".join(rows))
    _, profile = read_input(str(path))
    tie = "predict the arrival delay before the flight departs"
    assert understood_target(tie, profile).ask  # both delays fit the words
    decided = understood_target(tie + "; do not use dep_time, dep_delay or arr_time (known only after departure)",
                                profile)
    assert decided.column == "arr_delay" and "'dep_delay'" in decided.reason
    # an exclusion that leaves the tie as it was changes nothing
    assert understood_target(tie + "; do not use the carrier", profile).ask
    # the one column the words fit, said to stay out: a contradiction is asked about
    contradiction = understood_target("Predict the departure delay. dep_delay stays out, obviously.", profile)
    assert contradiction.ask and "dep_delay" not in contradiction.candidates


def test_when_every_column_named_is_an_input_the_target_is_asked_for_among_the_others(tmp_path):
    from automl_agent.data.inputs import read_input

    rows = [f"{20 + i % 50},{('M', 'F')[i % 2]},{2000 + i % 20},{('full', 'part')[i % 3 % 2]},{15000 + 37 * i % 9000}"
            for i in range(150)]
    path = tmp_path / "survey.csv"
    path.write_text("age,gender,year,wrkstat,realrinc\n" + "\n".join(rows))
    _, profile = read_input(str(path))
    decision = decide_target("predict how much a respondent earns per year (inflation-adjusted) from their age, "
                             "gender, the survey year and their work status", profile)
    assert decision.column in (None, "realrinc")  # never 'year', 'age' or 'wrkstat', all named as inputs
    assert decision.column == "realrinc" or (decision.ask and "year" not in decision.candidates)
