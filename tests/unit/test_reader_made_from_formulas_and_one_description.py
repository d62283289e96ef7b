"""Classes from the blind batch holdout50, on a table of its own (a payroll, not the batch's tables): a thing said to
be made from a parenthesised list ('the parts it is added up from (base, bonus, overtime)') is what the sentence
speaks of, not a list of inputs; a function's parentheses ('exp(ltotal)') hold its argument; the names in a formula
that defines a column ('hourly = total_pay / hours') say what it is; a parenthesis after a list that says something of
it ('(all divided by total_pay)') does not replace the list; 'the pay per hour worked (hourly)' and 'the day of hire
(hire_d)' are one description each, up to where a list's item starts; 'married (married)', said twice, is one input;
Spanish 'memoria' is memory."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.unit.reader_cases import read as _read
from tests.unit.reader_cases import saved


@pytest.fixture(scope="module")
def payroll(tmp_path_factory):
    rng = np.random.default_rng(50)
    n = 240
    base, bonus, overtime = rng.uniform(20e3, 60e3, n), rng.uniform(0, 5e3, n), rng.uniform(0, 8e3, n)
    total = base + bonus + overtime
    hours = rng.integers(1500, 2300, n)
    return saved(tmp_path_factory, "payroll", pd.DataFrame({
        "age": rng.integers(20, 65, n), "tenure": rng.integers(0, 30, n), "married": rng.integers(0, 2, n),
        "base": base.round(0), "bonus": bonus.round(0), "overtime": overtime.round(0), "total_pay": total.round(0),
        "ltotal": np.log(total).round(4), "hours": hours, "hourly": (total / hours).round(2),
        "ratio_a": (bonus / total).round(4), "ratio_b": (overtime / total).round(4),
        "hire_y": rng.integers(1995, 2024, n), "hire_m": rng.integers(1, 13, n), "hire_d": rng.integers(1, 29, n)}))


def test_what_a_thing_is_made_from_is_no_list_of_inputs(payroll):
    got = _read(payroll, "I want to predict total_pay. Don't feed the model the parts it is added up from (base, "
                         "bonus, overtime), nor hourly, which is just total_pay per hour worked.")
    assert got["outcome"] == "ok" and got["features"] == [], got
    assert got["excluded"] == ["base", "bonus", "hourly", "overtime"], got


def test_formulas_inside_a_reason_and_a_reason_after_the_list(payroll):
    got = _read(payroll, "target: ltotal\ndrop: total_pay and hourly (the target in other units: total_pay = "
                         "exp(ltotal), hourly = total_pay / hours), plus ratio_a, ratio_b (all divided by total_pay)")
    assert (got["outcome"], got["target"]) == ("ok", "ltotal"), got
    assert got["excluded"] == ["hourly", "ratio_a", "ratio_b", "total_pay"], got


def test_one_description_reads_back_past_of_and_per(payroll):
    got = _read(payroll, "Predict the pay per hour worked (hourly) from age and tenure.")
    assert (got["outcome"], got["target"], got["features"]) == ("ok", "hourly", ["age", "tenure"]), got
    got = _read(payroll, "Predict hourly from everything except the year, month and day of hire (hire_y, hire_m, "
                         "hire_d), and drop total_pay, ltotal, base, bonus, overtime, ratio_a and ratio_b.")
    assert got["outcome"] == "ok" and {"hire_y", "hire_m", "hire_d"} <= set(got["excluded"]), got


def test_a_name_said_twice_is_one_input(payroll):
    got = _read(payroll, "Predict hourly using only age (age), married (married) and tenure.")
    assert got["outcome"] == "ok" and got["features"] == ["age", "married", "tenure"], got


def test_spanish_memoria_is_memory(payroll):
    got = _read(payroll, "Quiero predecir hourly solo con age y tenure. Menos de 2 GB de memoria, por favor.")
    assert got["outcome"] == "ok" and got["constraints"] == ["peak_memory_mb < 2048"], got
