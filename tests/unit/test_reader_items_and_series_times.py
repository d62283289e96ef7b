"""Reader classes found by the blind corpus holdout20, each on sentences and tables of its own: a series whose time is
written as decimal years (how R's time series export: 1951.0, 1951.0833, ...); 'a three-month-ahead forecast'; 'as
inputs please take ...'; list items said as yes/no questions ('whether she is married', 'if he is self-employed'),
'how big is his household' and 'which of the two plans it was on'; German's formal 'Verwenden Sie' and its verb at the
end of a 'whether' clause; 'how many grams off on average' is a mean absolute error; 'it must be kept out' leaves
out the column its clause is about; a formula inside a Python string ('smf.ols("y ~ a + b", data=df)'). From the
second batch, holdout21: an initialism with one word unsaid ('heating value' for HHV); 'the 24 most recent
observations'; a bound in millions on figures said to be in billions; the label a clustering is compared with, said
in other words than its name ('the party they chose' for vote); 'the carbon content of a sample'. From the third,
holdout22: 'the trailing 36 months' (once misspelling-corrected to 'training'), 'a full-year outlook', 'starting from
the last month on record' (a moment, not a window), 'AU$2.5m', 'root-mean-square error', 'when I give it ...', 'smaller
as 7', French 'en me servant uniquement de'."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.brains.base import RecordingBrain, Transcript
from automl_agent.agents.brains.factory import make_brain
from automl_agent.agents.constraints import parse_constraints
from automl_agent.benchmark.understanding import read_table, understand
from automl_agent.data.profile import profile_table
from automl_agent.trainkit.runtime import ordered_series
from automl_agent.trainkit.times import as_times, decimal_year_frequency


def _read(data: str, text: str) -> dict:
    frame, profile = read_table(data)
    return understand(RecordingBrain(make_brain("offline"), Transcript()), text, profile, None, frame)


@pytest.fixture(scope="module")
def rainfall(tmp_path_factory):
    """Monthly rainfall of a town, its time as decimal years, as an R time series writes it."""
    n = 480
    years = 1951 + np.arange(n) / 12
    rain = 60 + 30 * np.sin(np.arange(n) * 2 * np.pi / 12) + np.random.default_rng(3).normal(0, 5, n)
    path = tmp_path_factory.mktemp("rain") / "rainfall.csv"
    pd.DataFrame({"time": years, "value": rain.round(1)}).to_csv(path, index=False)
    return str(path)


@pytest.fixture(scope="module")
def members(tmp_path_factory):
    """A gym's members: yes/no answers, a household size, a plan; whether they renewed."""
    rng = np.random.default_rng(4)
    n = 500
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "married": rng.choice(["yes", "no"], n),
                          "student": rng.choice(["yes", "no"], n), "household": rng.integers(1, 7, n),
                          "plan": rng.choice(["basic", "premium"], n), "visits": rng.poisson(8, n),
                          "region": rng.choice(["north", "south", "west"], n)})
    frame["spend"] = (frame.visits * 4.5 + rng.normal(0, 6, n)).round(2)
    frame["log_spend"] = np.log1p(frame.spend.clip(lower=0)).round(4)
    frame["renewed"] = np.where(rng.random(n) < 0.6, "yes", "no")
    path = tmp_path_factory.mktemp("members") / "members.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_decimal_years_are_read_as_the_dates_of_their_periods():
    monthly = pd.Series(1990 + np.arange(30) / 12, name="time")
    assert decimal_year_frequency(monthly) == 12
    dates = as_times(monthly)
    assert dates.iloc[0] == pd.Timestamp("1990-01-01") and dates.iloc[13] == pd.Timestamp("1991-02-01")
    quarterly = pd.Series(1960 + np.arange(12) / 4, name="t")
    assert as_times(quarterly).iloc[5] == pd.Timestamp("1961-04-01")
    # whole years are a clock only in a column named like one (a column called year: one row per year, in order);
    # a survey's years, or any other numbers, are not
    assert decimal_year_frequency(pd.Series(np.arange(1900, 1950), name="time")) == 1
    assert decimal_year_frequency(pd.Series(np.arange(1900, 1950)[::-1], name="year")) is None
    assert decimal_year_frequency(pd.Series(np.arange(1900, 1950), name="survey")) is None
    assert decimal_year_frequency(pd.Series([1990, 1990, 1991, 1992], name="time")) is None
    assert decimal_year_frequency(pd.Series(np.linspace(0, 1, 20), name="time")) is None


def test_a_series_timed_in_decimal_years_is_ordered_and_profiled_as_one(rainfall):
    frame = pd.read_csv(rainfall)
    profile = profile_table(frame)
    assert {c.name: c.kind for c in profile.columns}["time"] == "datetime"
    assert profile.time_step_s is not None and 27 * 86400 < profile.time_step_s < 32 * 86400
    values, stamps = ordered_series(frame.sample(frac=1, random_state=0), "time", "value")
    assert stamps.is_monotonic_increasing and stamps.is_unique and len(values) == len(frame)
    assert np.allclose(values, frame.value.to_numpy())


def test_a_forecast_of_a_decimal_year_series_is_understood(rainfall):
    got = _read(rainfall, "Give me a two-month-ahead projection of the town's rainfall, fed with the last 24 months.")
    assert got["outcome"] == "ok" and got["task"] == "time_series_forecasting" and got["target"] == "value"
    assert (got["horizon"], got["lookback"]) == (2, 24)


def test_inputs_named_after_as_input_and_items_said_as_questions(members):
    got = _read(members, "I want to know if a member renews. As inputs please take the age, if she is a student, "
                         "whether she is married and how big is her household.")
    assert got["outcome"] == "ok" and got["target"] == "renewed"
    assert sorted(got["features"]) == ["age", "household", "married", "student"]
    got = _read(members, "Predict the spend using only the age and which of the two plans they were on.")
    assert got["target"] == "spend" and sorted(got["features"]) == ["age", "plan"]


def test_a_condition_after_the_list_is_not_an_item(members):
    got = _read(members, "Predict the spend from age and visits only, if they are complete.")
    assert got["outcome"] == "ok" and sorted(got["features"]) == ["age", "visits"]


def test_formal_german_and_its_verb_last_whether_clause(members):
    got = _read(members, "Ich möchte vorhersagen, ob ein Mitglied verheiratet ist. Verwenden Sie nur das Alter, "
                         "die Haushaltsgröße und die Region.")
    assert got["outcome"] == "ok" and got["target"] == "married"
    assert sorted(got["features"]) == ["age", "household", "region"]


def test_how_many_units_off_on_average_is_the_mean_absolute_error(members):
    for text in ("Predict the spend from the visits. On average, how far off would we be?",
                 "How many euros off would a model of the spend be on average?"):
        got = _read(members, text)
        assert got["target"] == "spend" and got["metric"] == "mae", text


def test_it_must_be_kept_out_leaves_out_what_its_clause_is_about(members):
    got = _read(members, "Estimate each member's spend. The logged spend column is just the log of the answer, so "
                         "it has to be kept out of the model completely.")
    assert got["outcome"] == "ok" and got["target"] == "spend" and got["excluded"] == ["log_spend"]
    got = _read(members, "Estimate the spend. log_spend is derived from it, so it should stay out of the inputs.")
    assert got["excluded"] == ["log_spend"]


def test_a_formula_inside_a_python_string(members):
    got = _read(members, 'import statsmodels.formula.api as smf\nfit = smf.ols("spend ~ visits + age", data=gym).fit()')
    assert got["target"] == "spend" and sorted(got["features"]) == ["age", "visits"]
    got = _read(members, "smf.logit(formula='renewed ~ age + plan + region', data=gym)")
    assert got["target"] == "renewed" and sorted(got["features"]) == ["age", "plan", "region"]


@pytest.fixture(scope="module")
def boilers(tmp_path_factory):
    """Boiler tests: fuel contents, an initialism for the measured output (GCV: gross calorific value), a label."""
    rng = np.random.default_rng(5)
    n = 300
    frame = pd.DataFrame({"fuel": [f"fuel {i}" for i in range(n)], "moisture": rng.uniform(5, 40, n).round(1),
                          "ash": rng.uniform(1, 20, n).round(1), "carbon": rng.uniform(30, 60, n).round(1),
                          "batch": rng.choice(["pilot", "production"], n)})
    frame["GCV"] = (0.35 * frame.carbon - 0.1 * frame.moisture + rng.normal(0, 1, n)).round(2)
    path = tmp_path_factory.mktemp("boilers") / "boilers.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_an_initialism_with_one_word_unsaid_names_its_column(boilers):
    got = _read(boilers, "If we only measured the ash content of a fuel sample and nothing else, how well could we "
                         "predict its calorific value? How many MJ/kg would it typically be off?")
    assert got["outcome"] == "ok" and got["target"] == "GCV" and got["metric"] == "mae"
    assert got["features"] == ["ash"]


def test_the_most_recent_observations_are_the_input_window(rainfall):
    got = _read(rainfall, "Forecast `value` 4 steps out; the model sees the 36 most recent observations.")
    assert (got["horizon"], got["lookback"]) == (4, 36)


def test_a_bound_in_millions_is_converted_to_the_data_s_magnitude():
    def bounds(text):
        return {(c.name, c.op, c.target) for c in parse_constraints(text)}
    assert bounds("Predict the sale price; RMSE under 1.5 million.") == {("rmse", "<", 1.5e6)}
    assert bounds("Revenue is in billions of euros. MAE below 250 million.") == {("mae", "<", 0.25)}
    assert bounds("Sales figures are in thousands: keep the RMSE under 2 million.") == {("rmse", "<", 2000.0)}


def test_a_clustering_label_said_in_other_words_than_its_name(tmp_path):
    rng = np.random.default_rng(6)
    n = 300
    frame = pd.DataFrame({"score_a": rng.normal(size=n), "score_b": rng.normal(size=n), "score_c": rng.normal(size=n),
                          "vote": rng.choice(["red", "blue", "green"], n)})
    path = tmp_path / "ballots.csv"
    frame.to_csv(path, index=False)
    got = _read(str(path), "Group the voters by score_a, score_b and score_c without looking at their vote, then "
                           "measure the agreement between the groups and the party they picked.")
    assert got["task"] == "tabular_clustering" and got["target"] == "vote"


def test_a_name_spelt_from_the_first_letters_of_its_words_and_one_left_unsaid(tmp_path):
    rng = np.random.default_rng(7)
    n = 300
    frame = pd.DataFrame({"wage": rng.normal(20, 5, n).round(2), "huswage": rng.normal(25, 6, n).round(2),
                          "educ": rng.integers(8, 20, n), "appinc": rng.normal(60, 15, n).round(1),
                          "atotinc": rng.normal(80, 20, n).round(1), "faminc": rng.normal(90, 25, n).round(1)})
    path = tmp_path / "households.csv"
    frame.to_csv(path, index=False)
    assert _read(str(path), "Predict the husband wage.")["target"] == "huswage"
    assert _read(str(path), "Predict the family income from educ only.")["target"] == "faminc"
    # 'applicant income' spells appinc, and atotinc with a 'total' unsaid: a question, not a guess
    got = _read(str(path), "Predict the applicant income.")
    assert got["outcome"] == "ask" and {"appinc", "atotinc"} <= set(got["candidates"])


def test_trailing_windows_a_full_year_outlook_and_a_moment_that_is_no_window(rainfall):
    got = _read(rainfall, "Starting from the last month we have on record, I need a full-year outlook of the rainfall, "
                          "each projection driven by the trailing 24 months.")
    assert got["outcome"] == "ok" and (got["horizon"], got["lookback"]) == (12, 24)


def test_money_said_the_short_way_and_a_hyphenated_metric(rainfall):
    got = _read(rainfall, "Rainfall is recorded in thousands of litres here. Forecast 3 months ahead from the trailing "
                          "year; root-mean-square error below $2m.")
    assert got["metric"] == "rmse" and got["constraints"] == ["rmse < 2000"] and got["lookback"] == 12


def test_what_the_model_is_given_and_a_learner_s_comparison(members):
    got = _read(members, "I need a model what can say the spend of a member when I give it the visits, the age and if "
                         "she is student or not. The error in RMSE must be smaller as 9 euro.")
    assert got["outcome"] == "ok" and got["target"] == "spend" and got["constraints"] == ["rmse < 9"]
    assert sorted(got["features"]) == ["age", "student", "visits"]


def test_french_using_only_said_in_the_first_person(members):
    got = _read(members, "J'aimerais prédire la dépense de chaque membre en me servant uniquement de son âge et de "
                         "ses visites.")
    assert got["outcome"] == "ok" and got["target"] == "spend" and sorted(got["features"]) == ["age", "visits"]
