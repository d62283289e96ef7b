"""Compact prompt views: fewer tokens, same facts; and the model agent's key-by-key merge with the knowledge."""

import ast
import json

from automl_agent.agents import knowledge_base as kb
from automl_agent.agents import model_agent
from automl_agent.agents.contracts import Candidate, ModelProposal, Plan, RequirementSpec, TaskType
from automl_agent.agents.operation_agent import prompt_view, render
from automl_agent.agents.views import knowledge_view, profile_view
from automl_agent.data.profile import profile_table


def test_profile_view_keeps_every_column_fact_in_less_than_half_the_characters(churn_frame):
    profile = profile_table(churn_frame, "/somewhere/churn.csv")
    view = profile_view(profile)
    lines = view.splitlines()
    assert lines[0] == "churn.csv: 7043 rows, 20 columns"
    assert len(lines) == 2 + 20 + (1 if profile.class_balance else 0)
    row = next(line for line in lines if line.startswith("total_charges |"))
    assert row.split(" | ")[:5] == ["total_charges", "numeric", "float64", "11", str(profile.column("total_charges").n_unique)]
    assert "senior_citizen | numeric | int64 | 0 | 2 |" in view and view.count("0.1621") == 1
    assert len(view) < 0.5 * len(json.dumps(profile.model_dump(mode="json", exclude_defaults=True)))


def test_profile_view_cuts_long_examples():
    import pandas as pd

    frame = pd.DataFrame({"review": ["word " * 60 + str(i) for i in range(30)], "label": ["a", "b"] * 15})
    view = profile_view(profile_table(frame, "reviews.csv"))
    review_line = next(line for line in view.splitlines() if line.startswith("review |"))
    examples = review_line.split(" | ")[5].split("; ")
    assert examples and all(len(e) <= 40 for e in examples) and examples[0].endswith("…")


def test_knowledge_view_shows_each_range_default_and_cost():
    known = kb.models(TaskType.tabular_classification)
    view = knowledge_view({"lightgbm": known["lightgbm"]})
    assert view.startswith("lightgbm (gradient-boosted trees):")
    assert "n_estimators int 50..800 log" in view and "class_weight one of [null, \"balanced\"]" in view
    assert '"num_leaves":31' in view and "typical: score 0.85, 1.5 ms, 1.0 MB" in view
    assert len(view) < 0.65 * len(json.dumps(known["lightgbm"]))


def _spec() -> RequirementSpec:
    return RequirementSpec.model_validate({"problem": {"downstream_task": "tabular_classification", "metric": "f1"},
                                           "dataset": {"target": "churn"}})


def test_a_candidate_overrides_the_knowledge_key_by_key():
    known = kb.models(TaskType.tabular_classification)["lightgbm"]
    narrowed = {"num_leaves": {"type": "int", "low": 4, "high": 16, "log": True},
                "learning_rate": {"type": "float", "low": 1.0, "high": 0.1},  # low > high: ignored
                "not_a_parameter": {"type": "int", "low": 1, "high": 2}}
    proposal = ModelProposal(candidates=[Candidate(model="lightgbm", hyperparameters={"num_leaves": 8, "bogus": 1},
                                                   search_space=narrowed)])
    plan = Plan(plan_id=1, title="t", rationale="r", data_steps=[], model_families=["lightgbm"])
    (candidate,) = model_agent.ground(proposal, _spec(), plan, top_k=3).candidates
    assert set(candidate.search_space) == set(known["space"])
    assert candidate.search_space["num_leaves"]["high"] == 16
    assert candidate.search_space["learning_rate"] == known["space"]["learning_rate"]
    assert candidate.hyperparameters == {**known["defaults"], "num_leaves": 8}


def test_a_candidate_that_departs_in_nothing_gets_the_knowledge_whole():
    known = kb.models(TaskType.tabular_classification)["random_forest"]
    proposal = ModelProposal(candidates=[Candidate(model="random_forest")])
    plan = Plan(plan_id=1, title="t", rationale="r", data_steps=[], model_families=["random_forest"])
    (candidate,) = model_agent.ground(proposal, _spec(), plan, top_k=3).candidates
    assert candidate.search_space == known["space"] and candidate.hyperparameters == known["defaults"]


def test_the_llm_reads_the_skeleton_without_comments_but_with_the_same_code():
    config = {"task": "tabular_classification", "data_path": "x.csv", "target": "y", "numeric": ["a"],
              "categorical": [], "text": [], "metric": "f1", "direction": "maximize", "candidates": []}
    script = render(config)
    view = prompt_view(script)
    assert "# ----" not in view and '"""Median imputation' not in view
    assert view.startswith('"""Training pipeline for a tabular task')  # the module docstring states inputs and outputs
    assert ast.dump(ast.parse(view)).count("FunctionDef") == ast.dump(ast.parse(script)).count("FunctionDef")
    assert "'data_path': 'x.csv'" in view and "results.json" in view and "model.joblib" in view
    assert len(view) < 0.92 * len(script)


def test_every_tabular_and_text_model_of_the_knowledge_base_builds_from_its_defaults():
    import pytest

    from automl_agent.trainkit.estimators import make_estimator

    for task in (TaskType.tabular_classification, TaskType.tabular_regression, TaskType.tabular_clustering,
                 TaskType.text_classification):
        for key, info in kb.models(task).items():
            # the text encoder's own parameters go to the preprocessor, as the skeleton's make_pipeline splits them
            params = {k: v for k, v in info["defaults"].items() if k not in {"max_features", "ngram_max", "char_ngrams"}}
            estimator = make_estimator(key, params, task=task.value, seed=0, n_jobs=1)
            assert hasattr(estimator, "fit"), (task, key)
    with pytest.raises(ValueError, match="unknown model key"):
        make_estimator("no_such_model", {}, task="tabular_classification")


def test_edits_apply_in_order_and_an_ambiguous_or_missing_excerpt_is_fed_back():
    from automl_agent.agents.contracts import ScriptEdit
    from automl_agent.agents.operation_agent import apply_edits

    base = "a = 1\nb = 2\nc = a + b\n"
    edited, problems = apply_edits(base, [ScriptEdit(find="b = 2", replace="b = 3"), ScriptEdit(find="b = 3", replace="b = 4")])
    assert edited == "a = 1\nb = 4\nc = a + b\n" and problems == []
    edited, problems = apply_edits(base, [ScriptEdit(find="= ", replace="="), ScriptEdit(find="d = 4", replace=""),
                                          ScriptEdit(find="c = a + b", replace="c = a * b")])
    assert edited == "a = 1\nb = 2\nc = a * b\n"
    assert [p.split(":")[0] for p in problems] == ["edit 1", "edit 2"]
    assert "occurs 3 times" in problems[0] and "occurs 0 times" in problems[1]


def test_a_script_answer_must_say_what_the_script_is():
    import pytest
    from pydantic import ValidationError

    from automl_agent.agents.contracts import GeneratedScript

    with pytest.raises(ValidationError, match="complete script"):
        GeneratedScript.model_validate_json('{"source": "  ", "notes": "nothing"}')
    assert GeneratedScript.model_validate_json('{"edits": [{"find": "x", "replace": "y"}]}').edits[0].replace == "y"
