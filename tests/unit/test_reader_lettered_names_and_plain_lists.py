"""Reader classes found by the blind corpus holdout23, each on sentences and tables of its own: a name that is one
letter before a word ('fwork' the father's work, 'lsalary' the logged salary); 'which track a pupil attends' asks
for the track, not for the pupil; a list after a header and a colon ('using only three things: A, B and C'); items
said as 'how many years he has ...' and 'how long she has stayed with ...'; a place after the head ('children at
home'); three or more columns after a plain 'from' or 'off' are the inputs; 'minus X itself'; 'a 10-minute budget';
the writer's own essay is no request for an essay; German 'ausschließlich ... heranziehen'."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.constraints import parse_constraints
from automl_agent.agents.understanding.request import asks_for_something_else
from automl_agent.agents.understanding.words import abbreviates_phrase
from tests.unit.reader_cases import read as _read, saved as _saved




N = 400


def _drawn(seed: int, columns) -> tuple[pd.DataFrame, np.random.Generator]:
    """A table of N rows whose columns `columns(rng)` draws, and the generator for anything derived from them."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(columns(rng)), rng


@pytest.fixture(scope="module")
def pupils(tmp_path_factory):
    """Pupils of a school survey: the track each attends, the household's income and size, the parents' schooling
    and work."""
    frame, _ = _drawn(5, lambda rng: {
        "track": rng.choice(["academic", "vocational", "general"], N), "hincome": rng.integers(20000, 150000, N),
        "meducation": rng.integers(8, 19, N), "fwork": rng.choice(["none", "parttime", "fulltime"], N),
        "children": rng.integers(1, 6, N), "hhsize": rng.integers(2, 9, N),
        "region": rng.choice(["north", "south", "east"], N)})
    return _saved(tmp_path_factory, "pupils", frame)


@pytest.fixture(scope="module")
def salaries(tmp_path_factory):
    """Salaries of clerks, with the salary logged beside it."""
    frame, rng = _drawn(6, lambda rng: {
        "schooling": rng.integers(8, 20, N), "experience": rng.integers(0, 30, N), "seniority": rng.integers(0, 20, N),
        "aptitude": rng.integers(60, 140, N), "city": rng.integers(0, 2, N), "coastal": rng.integers(0, 2, N),
        "married": rng.integers(0, 2, N)})
    frame["salary"] = (900 + 40 * frame.schooling + 12 * frame.experience + rng.normal(0, 80, N)).round(0)
    frame["lsalary"] = np.log(frame.salary).round(4)
    return _saved(tmp_path_factory, "salaries", frame)


def test_one_letter_for_whose_it_is_before_a_word():
    assert abbreviates_phrase("fwork", ["father", "work"])
    assert abbreviates_phrase("meducation", ["mother", "education"])
    assert not abbreviates_phrase("fwork", ["mother", "work"])


def test_the_fathers_work_said_in_several_ways_names_the_lettered_column(pupils):
    for said in ("the father's work", "the work of the father", "his work"):
        got = _read(pupils, f"Predict the track using only the household income and {said}.")
        assert got["features"] == ["fwork", "hincome"], said


def test_which_thing_a_row_does_asks_for_the_thing_not_for_the_row(pupils):
    got = _read(pupils, "I want to predict which track a child attends.")
    assert got["target"] == "track"


def test_a_header_before_a_colon_is_not_an_item_and_a_place_after_the_head_is_not_the_head(pupils):
    got = _read(pupils, "Group the families based purely on their economic background: household income, the "
                        "number of children at home and the household size.")
    assert got["task"] == "tabular_clustering"
    assert got["features"] == ["children", "hhsize", "hincome"]


def test_the_writers_own_essay_is_no_request_for_one():
    assert not asks_for_something_else("I'm drafting an essay about school tracking and would like to know whether "
                                       "the families fall into natural groups.")
    assert asks_for_something_else("Write me an essay about school tracking.")


def test_items_said_as_how_many_and_how_long(salaries):
    got = _read(salaries, "Predict the salary using only three things: how many years of schooling each clerk "
                          "completed, how many years she has been in the labour force overall, and her aptitude.")
    assert got["features"] == ["aptitude", "experience", "schooling"]


def test_columns_after_a_plain_from_or_off_are_the_inputs_two_as_well(salaries):
    got = _read(salaries, "quick one: classify city off salary, schooling, coastal, married.")
    assert (got["target"], got["features"]) == ("city", ["coastal", "married", "salary", "schooling"])
    got = _read(salaries, "classify city from salary, schooling and married")
    assert got["features"] == ["married", "salary", "schooling"]
    assert _read(salaries, "predict the salary from schooling and experience")["features"] == ["experience", "schooling"]


def test_minus_a_column_itself_leaves_it_out(salaries):
    got = _read(salaries, "Target is lsalary. Use the remaining columns as predictors, minus salary itself since it "
                          "is the same number unlogged.")
    assert (got["target"], got["excluded"]) == ("lsalary", ["salary"])


def test_a_budget_said_as_a_hyphenated_length():
    def bounds(text):
        return [(c.name, c.op, c.target) for c in parse_constraints(text)]
    assert bounds("the training run has to finish inside a 10-minute budget") == [("training_time_s", "<=", 600.0)]
    assert bounds("a 5-minute training cap") == [("training_time_s", "<=", 300.0)]
    assert bounds("keep latency in a 10-ms budget") == [("latency_ms", "<=", 10.0)]
    assert bounds("forecast the next 10-minute interval") == []


def test_german_only_these_inputs_with_the_verb_last(pupils):
    got = _read(pupils, "Ich möchte track vorhersagen. Als Merkmale bitte ausschließlich das Haushaltseinkommen und "
                        "die Zahl der Kinder heranziehen.")
    assert (got["target"], got["features"]) == ("track", ["children", "hincome"])


# classes found by the second blind batch, holdout24

@pytest.fixture(scope="module")
def students(tmp_path_factory):
    """Undergraduates: test scores, credit hours, a college GPA, whether they play on a team (0/1)."""
    frame, _ = _drawn(7, lambda rng: {
        "sat": rng.integers(800, 1500, N), "tothrs": rng.integers(6, 130, N), "unigpa": rng.uniform(1.5, 4.0, N).round(2),
        "athlete": (rng.random(N) < 0.08).astype(int), "hsize": rng.uniform(0.5, 9.0, N).round(2),
        "hsperc": rng.uniform(0, 90, N).round(1)})
    frame["hsizesq"] = (frame.hsize ** 2).round(3)
    return _saved(tmp_path_factory, "students", frame)


@pytest.fixture(scope="module")
def workers(tmp_path_factory):
    """Young workers over several years: schooling, experience, log wage, union coverage."""
    frame, _ = _drawn(8, lambda rng: {
        "year": rng.integers(1980, 1988, N), "school": rng.integers(6, 17, N), "exper": rng.integers(0, 18, N),
        "wage": rng.normal(1.6, 0.5, N).round(3), "union": rng.choice(["yes", "no"], N, p=[0.25, 0.75]),
        "maried": rng.choice(["yes", "no"], N), "health": rng.choice(["yes", "no"], N, p=[0.05, 0.95])})
    return _saved(tmp_path_factory, "workers", frame)


def test_a_yes_no_column_is_a_class_when_an_input_is_described_as_how_many(students):
    got = _read(students, "Pick out the athletes among the students from sat, tothrs and hsize: how many credit hours "
                          "they had matters.")
    assert (got["task"], got["features"]) == ("tabular_classification", ["hsize", "sat", "tothrs"])


def test_go_only_on_limits_and_a_short_qualifier_before_a_word_names_the_column(students):
    got = _read(students, "Predict the athlete flag. Go only on their GPA, sat and hsize.")
    assert (got["target"], got["features"]) == ("athlete", ["hsize", "sat", "unigpa"])


def test_is_nothing_but_says_what_a_column_is_and_sets_no_limit(students):
    got = _read(students, "Model the GPA. Use all the other fields except two: drop hsizesq, which is nothing but the "
                          "class size squared, and drop hsperc as well.")
    assert (got["target"], got["features"], got["excluded"]) == ("unigpa", [], ["hsizesq", "hsperc"])


def test_collective_bargaining_is_the_union_column_and_fixed_by_is_no_input(workers):
    got = _read(workers, "Predict whether the wage of a worker is fixed by collective bargaining or not.")
    assert got["target"] == "union"


def test_an_error_or_better_is_at_most_and_whatever_else_sets_no_limit(workers):
    got = _read(workers, "Target: wage. Inputs: whatever else the table offers. An RMSE of 0.47 or better.")
    assert (got["constraints"], got["features"]) == (["rmse <= 0.47"], [])


def test_years_of_school_is_the_schooling_not_the_year(workers):
    got = _read(workers, "Predict the wage using only his years of school and his experience.")
    assert got["features"] == ["exper", "school"]


def test_please_take_a_list_asks_about_an_item_it_cannot_place(workers):
    got = _read(workers, "Predict union. For this please take his years of school, his experience and the shoe size.")
    assert got["outcome"] == "ask"


def test_a_word_in_parentheses_inside_a_phrase_does_not_end_the_list(workers):
    got = _read(workers, "Cluster the workers using only 3 things: years of schooling, how many years of work "
                         "experience they have built up, and their (logged) hourly wage.")
    assert got["features"] == ["exper", "school", "wage"]


@pytest.fixture(scope="module")
def retail(tmp_path_factory):
    months = pd.date_range("1990-01-01", periods=240, freq="MS")
    sales = 100 + np.arange(240) * 0.2 + 8 * np.sin(np.arange(240) * 2 * np.pi / 12)
    return _saved(tmp_path_factory, "retail", pd.DataFrame({"month": months.strftime("%Y-%m-%d"), "sales": sales.round(2)}))


def test_a_window_in_years_said_short_and_a_spanish_number_word(retail):
    assert _read(retail, "forecast 2 steps ahead, input window = 3 yrs of lags")["lookback"] == 36
    got = _read(retail, "Quiero pronosticar los próximos tres meses, tomando como entrada únicamente los últimos "
                        "dieciocho meses observados.")
    assert (got["horizon"], got["lookback"]) == (3, 18)


def test_a_relative_clause_on_one_item_does_not_end_the_list(workers):
    got = _read(workers, "Predict union. For this please take his years of school, the wage where he is working, and "
                         "his experience.")
    assert got["features"] == ["exper", "school", "wage"]
