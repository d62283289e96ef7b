"""Which columns the model may use, as the instruction says: 'using only carat and cut' limits the inputs, 'don't use
total_charges' leaves one out, a limit that names no column is asked about, and words that only look like a limit
('it should only take 10 ms') change nothing."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from automl_agent.agents import data_agent, prompt_agent
from automl_agent.agents.brains.base import RecordingBrain, Transcript
from automl_agent.agents.brains.offline import OfflineBrain
from automl_agent.agents.brains.scripted import ScriptedBrain
from automl_agent.agents.contracts import DataAnalysis, Plan
from automl_agent.agents.understanding.features import decide_features
from automl_agent.data.profile import profile_table
from automl_agent.errors import InputsUnclear, UserFacingError

DATASETS = Path(__file__).resolve().parents[2] / "automl_agent" / "datasets"


@pytest.fixture(scope="module")
def profiles():
    return {name: profile_table(pd.read_csv(DATASETS / f"{name}.csv", nrows=2000), f"{name}.csv")
            for name in ("diamonds", "churn", "penguins")}


LIMITS = [
    ("diamonds", "price", "predict price using only carat and cut", ["carat", "cut"], []),
    # a first name part said whole names every column it begins
    ("penguins", "species", "classify species using only the bill measurements", ["bill_length_mm", "bill_depth_mm"], []),
    ("diamonds", "price", "Estimate price. Use only carat, cut, color and clarity (the 4Cs).",
     ["carat", "cut", "color", "clarity"], []),
    ("diamonds", "price", "I want a price model based solely on carat", ["carat"], []),
    ("diamonds", "price", "price from carat and clarity only", ["carat", "clarity"], []),
    ("diamonds", "price", "Price model with x, y and z only, nothing else", ["x", "y", "z"], []),
    ("diamonds", "price", "Only use the categorical columns to predict price.", ["cut", "color", "clarity"], []),
    ("diamonds", "price", "predict price but don't use the depth or table columns", [], ["depth", "table"]),
    ("diamonds", "price", "predict price, ignore x y z", [], ["x", "y", "z"]),
    ("diamonds", "price", "predict price using all features except depth", [], ["depth"]),
    ("diamonds", "price", "predict price. no depth, no table.", [], ["depth", "table"]),
    ("churn", "churn", "Predict churn. Only look at tenure, contract and monthly charges.",
     ["tenure", "contract", "monthly_charges"], []),
    ("churn", "churn", "churn model, features limited to tenure and the contract type", ["tenure", "contract"], []),
    ("churn", "churn", "Predict churn using just tenure & payment method", ["tenure", "payment_method"], []),
    ("churn", "churn", "predict churn. The model may only see tenure, contract, and internet service.",
     ["tenure", "contract", "internet_service"], []),
    ("churn", "churn", "Only tenure and contract should go into the churn model", ["tenure", "contract"], []),
    ("churn", "churn", "will the customer churn? leave out total_charges, it leaks", [], ["total_charges"]),
    ("churn", "churn", "predict churn, but do not use gender or senior citizen status", [], ["female", "senior_citizen"]),
    ("churn", "churn", "predict churn w/o paperless billing and payment method", [], ["paperless_billing", "payment_method"]),
    ("penguins", "species", "classify species using only bill length and flipper length",
     ["bill_length_mm", "flipper_length_mm"], []),
    ("penguins", "species", "predict the species, excluding island and year", [], ["island", "year"]),
]

NO_LIMIT = [
    ("diamonds", "price", "Predict the price of a diamond from its carat, cut, colour, clarity and dimensions."),
    ("diamonds", "price", "predict price without overfitting, it should only take 10 ms"),
    ("diamonds", "price", "predict price; drop rows with missing carat"),
    ("diamonds", "price", "drop the NA values in carat and predict price"),
    ("diamonds", "price", "Train a model only on the 2023 data to predict price"),
    ("diamonds", "price", "Using only open data, predict price"),
    ("diamonds", "price", "price; use only CPU"),
    ("churn", "churn", "Use only scikit-learn models to predict churn"),
    ("churn", "churn", "predict churn with only a few lines of code"),
    ("churn", "churn", "We only care about churners: predict churn from everything"),
    ("churn", "churn", "don't use deep learning, just predict churn"),
]

ASKED = [
    ("diamonds", "price", "predict price using only the size and the sparkle", ["'size'", "'sparkle'"]),
    ("penguins", "species", "predict species from length only", ["bill_length_mm or flipper_length_mm"]),
    ("churn", "churn", "Only use features available at signup time to predict churn", ["available at signup time"]),
]


@pytest.mark.parametrize("data, target, text, only, excluded", LIMITS)
def test_limits_and_exclusions_are_read_from_the_words(profiles, data, target, text, only, excluded):
    choice = decide_features(text, profiles[data], target)
    assert (sorted(choice.only), sorted(choice.excluded), choice.unresolved) == (sorted(only), sorted(excluded), [])


@pytest.mark.parametrize("data, target, text", NO_LIMIT)
def test_words_that_only_look_like_a_limit_change_nothing(profiles, data, target, text):
    choice = decide_features(text, profiles[data], target)
    assert (choice.only, choice.excluded, choice.unresolved) == ([], [], [])


@pytest.mark.parametrize("data, target, text, said", ASKED)
def test_a_limit_that_names_no_column_or_several_is_left_open(profiles, data, target, text, said):
    choice = decide_features(text, profiles[data], target)
    assert choice.unresolved and all(any(s in u for u in choice.unresolved) for s in said)


def _parse(profile, text, brain=None):
    brain = brain or RecordingBrain(OfflineBrain(), Transcript())
    return prompt_agent.parse_instruction(brain, text, profile)


def test_an_unclear_limit_stops_the_run_with_a_question_that_lists_the_columns(profiles):
    with pytest.raises(InputsUnclear) as raised:
        _parse(profiles["diamonds"], "predict price using only the size and the sparkle")
    message = str(raised.value)
    assert "'size' and 'sparkle'" in message and "carat, cut, color, clarity" in message
    assert "using only the size and the sparkle" in message


def test_the_target_cannot_be_its_own_input(profiles):
    with pytest.raises(InputsUnclear, match="'price' is the column to predict"):
        _parse(profiles["diamonds"], "predict price using only price")


def test_leaving_out_every_input_is_refused(profiles):
    text = "predict price; ignore carat, cut, color, clarity, depth, table, x, y and z"
    with pytest.raises(UserFacingError, match="no other column is left"):
        _parse(profiles["diamonds"], text)


def test_the_limit_reaches_the_spec_and_the_data_agent_keeps_to_it(profiles):
    profile = profiles["churn"]
    spec, notes = _parse(profile, "Predict churn based only on contract, tenure and monthly charges; "
                                  "don't use total_charges.")
    assert spec.dataset.target == "churn"
    assert spec.dataset.features == ["contract", "tenure", "monthly_charges"] and spec.dataset.excluded == ["total_charges"]
    assert any(n.startswith("inputs limited to contract, tenure and monthly_charges") for n in notes)
    plan = Plan(plan_id=1, title="t", rationale="r", data_steps=[], model_families=["lightgbm"])
    grounded = data_agent.analyse(RecordingBrain(OfflineBrain(), Transcript()), spec, plan, profile)
    assert sorted(grounded.features) == ["contract", "monthly_charges", "tenure"]
    assert grounded.numeric == ["tenure", "monthly_charges"] and grounded.categorical == ["contract"]
    assert grounded.dropped["online_security"] == "not among the inputs the instruction allows"


def test_an_exclusion_is_dropped_with_its_reason(profiles):
    profile = profiles["diamonds"]
    spec, notes = _parse(profile, "Predict the price but leave x, y and z out; they duplicate carat.")
    assert spec.dataset.excluded == ["x", "y", "z"] and not spec.dataset.features
    analysis = DataAnalysis(summary="", features=[], numeric=[], categorical=[], preprocessing=[])
    grounded = data_agent.ground(analysis, spec, profile)
    assert set(grounded.features) == {"carat", "cut", "color", "clarity", "depth", "table"}
    assert grounded.dropped["x"] == "the instruction says not to use it"


def test_a_brains_limit_that_the_words_do_not_state_is_undone(profiles):
    """A model that reads 'carat and cut matter most' as 'only carat and cut' would silently drop columns."""
    answer = {"problem": {"downstream_task": "tabular_regression", "metric": "rmse"},
              "dataset": {"target": "price", "features": ["carat", "cut"]}}
    brain = RecordingBrain(ScriptedBrain({"prompt.parse_instruction": [answer]}), Transcript())
    spec, notes = _parse(profiles["diamonds"], "Predict a diamond's price; its carat and cut matter most.", brain)
    assert spec.dataset.features == []
    assert any("replaced by what the instruction says: every usable column" in n for n in notes)


def test_a_brain_may_read_a_limit_in_words_the_rules_do_not_know(profiles):
    """'the 4 Cs' names no column to the rules; an LLM that knows diamonds reads carat, cut, color and clarity."""
    answer = {"problem": {"downstream_task": "tabular_regression", "metric": "rmse"},
              "dataset": {"target": "price", "features": ["carat", "cut", "color", "clarity"]}}
    brain = RecordingBrain(ScriptedBrain({"prompt.parse_instruction": [answer]}), Transcript())
    spec, notes = _parse(profiles["diamonds"], "Estimate price with only the 4 Cs.", brain)
    assert spec.dataset.features == ["carat", "cut", "color", "clarity"]
    assert any(n.startswith("inputs limited to carat, cut, color and clarity") for n in notes)
    wrong = {"problem": {"downstream_task": "tabular_regression", "metric": "rmse"},
             "dataset": {"target": "price", "features": ["carat", "sparkle"]}}
    brain = RecordingBrain(ScriptedBrain({"prompt.parse_instruction": [wrong]}), Transcript())
    spec, _ = _parse(profiles["diamonds"], "Estimate price with only the 4 Cs.", brain)
    assert spec.dataset.features == []  # a column that does not exist: the brain's reading is not taken


def test_a_word_that_only_qualifies_another_does_not_name_a_column():
    """'floor area' is an area: with a floor column and the area under another name, the run asks."""
    frame = pd.DataFrame({"Wohnflaeche_m2": [40.5 + i for i in range(100)], "floor": [i % 6 for i in range(100)],
                          "district": ["Nordend", "Gallus"] * 50, "rent_eur": [700 + 9 * i for i in range(100)]})
    profile = profile_table(frame, "flats.csv")
    with pytest.raises(InputsUnclear, match="'floor area' \\(nearest: floor\\)"):
        _parse(profile, "What will a flat rent for? Use only the floor area and the district.")
    spec, _ = _parse(profile, "What will a flat rent for? Use only Wohnflaeche_m2 and the district.")
    assert spec.dataset.features == ["Wohnflaeche_m2", "district"]


def test_a_limit_to_columns_no_model_can_use_is_refused():
    frame = pd.DataFrame({"customer_id": [f"c{i}" for i in range(200)], "age": range(200),
                          "spend": [i % 7 for i in range(200)], "churned": ["yes", "no"] * 100})
    profile = profile_table(frame, "customers.csv")
    with pytest.raises(UserFacingError, match="customer_id is an identifier"):
        _parse(profile, "Predict churned using only customer_id")


# the net under the exclusion phrasings: a column in a clause that says not to use it, in any word order
NEGATED = [
    ("churn", "churn", "Predict churn. The contract I don't want inside, please.", ["contract"]),
    ("churn", "churn", "Predict churn; tenure please not use.", ["tenure"]),
    ("diamonds", "price", "Estimate price, and also the depth we do not want in the model", ["depth"]),
    ("penguins", "species", "classify species, nor island nor sex should be used", ["island", "sex"]),
    ("diamonds", "price", "Price model. Never feed it the table column, it is noise.", ["table"]),
    ("churn", "churn", "Churn classifier, under 3 ms a call. Tenure stays out, obviously.", ["tenure"]),
    ("diamonds", "price", "estimate the price; keep depth and table out of it", ["depth", "table"]),
]
NOT_NEGATED = [
    ("diamonds", "price", "predict price, it doesn't need to be perfect"),
    ("churn", "churn", "predict churn, drop the rows where tenure is missing"),
    ("churn", "churn", "predict whether or not the customer churns, no more than 10 ms per call"),
    ("penguins", "species", "classify species without supervision tricks, thanks"),
]


@pytest.mark.parametrize("data, target, text, excluded", NEGATED)
def test_a_column_said_not_to_be_used_is_left_out_whatever_the_word_order(profiles, data, target, text, excluded):
    choice = decide_features(text, profiles[data], target)
    assert sorted(choice.excluded) == sorted(excluded) and choice.unresolved_exclusions == []


@pytest.mark.parametrize("data, target, text", NOT_NEGATED)
def test_a_no_that_is_not_about_the_inputs_leaves_them_alone(profiles, data, target, text):
    choice = decide_features(text, profiles[data], target)
    assert (choice.excluded, choice.unresolved_exclusions) == ([], [])


def test_words_said_not_to_be_used_that_name_no_column_are_asked_about(profiles):
    choice = decide_features("Predict churn, but don't use the customer's favourite colour or tenure",
                             profiles["churn"], "churn")
    assert choice.excluded == ["tenure"] and any("favourite colour" in u for u in choice.unresolved_exclusions)
    with pytest.raises(InputsUnclear, match="says not to use .*favourite colour"):
        _parse(profiles["churn"], "Predict churn, but don't use the customer's favourite colour or tenure")
