"""The canonical form every rule reads (understanding/language.py) and the spec audit (understanding/audit.py)."""

from __future__ import annotations

import pytest

from automl_agent.agents.brains.base import RecordingBrain, Transcript
from automl_agent.agents.brains.offline import OfflineBrain
from automl_agent.agents.contracts import ColumnProfile, DataProfile
from automl_agent.agents.prompt_agent import parse_instruction
from automl_agent.agents.understanding.language import canonical, detect_language
from automl_agent.agents.understanding.request import judge_request
from automl_agent.errors import InputsUnclear


def _profile(**kinds: str) -> DataProfile:
    columns = [ColumnProfile(name=n, dtype="float64" if k == "numeric" else "object", kind=k, missing=0,
                             n_unique=2 if k == "boolean" else 50, examples=[]) for n, k in kinds.items()]
    return DataProfile(path="/tmp/t.csv", n_rows=200, n_columns=len(columns), columns=columns,
                       target_candidates=[c.name for c in columns])


@pytest.mark.parametrize("text, language", [
    ("Prédire la valeur médiane des logements à partir de toutes les autres colonnes.", "fr"),
    ("Gehalt schätzen, alle Spalten außer sex verwenden.", "de"),
    ("Quiero predecir el peso al nacer con los datos de la madre.", "es"),
    ("Predict the price from all the other columns, RMSE under 4.", "en"),
    ("medv ~ lstat + rm", "en"),
])
def test_the_language_is_told_apart(text, language):
    assert detect_language(text) == language


def test_french_german_and_spanish_requests_read_as_english_with_column_names_untouched():
    fr = canonical("Prédire medv uniquement à partir de lstat et rm ; RMSE inférieure à 4,5.", ("medv", "lstat", "rm"))
    assert fr.language == "fr" and "predict medv only from lstat and rm" in fr.text and "below 4.5" in fr.text
    de = canonical("Gehalt (salary) schätzen, student bitte weglassen. Fehler höchstens 12.000 Dollar.",
                   ("salary", "student"))
    assert "without student" in de.text and "at most 12000" in de.text
    es = canonical("Clasificar ShelveLoc usando únicamente Sales y Price. Exactitud mínima del 65 %.",
                   ("ShelveLoc", "Sales", "Price"))
    assert "classify ShelveLoc using only Sales and Price" in es.text and "accuracy at least of the 65%" in es.text


def test_formulas_bullets_thousands_and_parenthesised_columns_take_one_form():
    assert canonical("medv ~ lstat + rm + ptratio").text == "predict medv using only lstat, rm, ptratio"
    assert canonical("mpg ~ . - name").text == "predict mpg, do not use name"
    bullets = canonical("- target: Balance\n- inputs: Income, Limit\n- metric: MAE, must be under 90")
    assert bullets.text == "target: Balance; inputs: Income, Limit; metric: MAE, must be under 90"
    assert "50000 parameters" in canonical("at most 50,000 parameters").text
    said = canonical("Model visibility using only the moisture readings (humid, dewp, precip).",
                     ("visib", "humid", "dewp", "precip"))
    assert said.text == "Model visibility using only humid, dewp, precip." and said.rewrites


def test_a_lookup_question_is_refused_as_such():
    relevant, feedback = judge_request("Which suburb has the highest crime rate?", None)
    assert not relevant and "machine-learning" in feedback
    assert judge_request("Which customers will have the highest spend next month?", None)[0]


def test_a_column_the_instruction_names_but_the_spec_does_not_place_is_asked_about():
    profile = _profile(price="numeric", Carat_W="numeric", Depth_Pct="numeric", table="numeric")
    brain = RecordingBrain(OfflineBrain(), Transcript())
    spec, _ = parse_instruction(brain, "Predict price using only Carat_W and Depth_Pct.", profile)
    placed = {m.words: m.placed_as for m in spec.audit.mentions}
    assert placed == {"Carat_W": "input", "Depth_Pct": "input"}
    with pytest.raises(InputsUnclear) as asked:  # 'besides' is a structure the reader does not know
        parse_instruction(brain, "Predict price using only Carat_W, but besides that Depth_Pct is never allowed in.",
                          profile)
    assert "Depth_Pct" in asked.value.problem


def test_a_bound_that_goes_nowhere_is_asked_about():
    profile = _profile(price="numeric", carat="numeric", depth="numeric")
    brain = RecordingBrain(OfflineBrain(), Transcript())
    with pytest.raises(InputsUnclear) as asked:
        parse_instruction(brain, "Predict price; keep the wobble factor below 3.", profile)
    assert "below 3" in asked.value.problem


@pytest.mark.parametrize("text, step_s, expected", [
    ("Forecast sales for the next quarter.", 2678400.0, (None, 3)),
    ("Forecast NOx for the next fortnight from the previous 8 weeks.", 86400.0, (56, 14)),
    ("Forecast humidity 0.5 day ahead using the previous 2 days.", 3600.0, (48, 12)),
    ("Forecast the temperature for the next hour from the last 3 hours.", 600.0, (18, 6)),
    ("Forecast OT (INPUT_SEQ_LEN=96, PRED_SEQ_LEN=24).", 3600.0, (96, 24)),
    ("forecast deaths 30 days ahead from a 90-day window", 86400.0, (90, 30)),
    ("univariate forecast, 18 steps ahead, 60-step lookback", 2678400.0, (60, 18)),
])
def test_forecast_windows_are_read_in_the_data_own_steps(text, step_s, expected):
    from automl_agent.agents.understanding.windows import requested_windows

    assert requested_windows(text, step_s) == expected


def test_a_date_is_assembled_from_year_and_month_columns(tmp_path):
    from automl_agent.data.inputs import read_input

    path = tmp_path / "traffic.csv"
    path.write_text("Year,Month,Traffic\n" + "".join(f"{2000 + i // 12},{i % 12 + 1},{100 + i}\n" for i in range(36)))
    frame, profile = read_input(path)
    assert str(frame["date"].iloc[13].date()) == "2001-02-01"
    assert profile.column("date").kind == "datetime" and 27 * 86400 < profile.time_step_s < 32 * 86400
    assert any("assembled from Year, Month" in note for note in profile.reading.notes)


def test_an_exclusion_said_after_the_column_is_kept():
    profile = _profile(salary="numeric", rank="categorical", sex="categorical", yrs="numeric")
    brain = RecordingBrain(OfflineBrain(), Transcript())
    spec, _ = parse_instruction(brain, "Estimate salary. Sex must not be an input.", profile)
    assert spec.dataset.excluded == ["sex"]
