"""Decisions that must be right are corrected whatever the brain says (a scripted, wrong brain here)."""

from automl_agent.agents import model_agent, prompt_agent
from automl_agent.agents.brains.base import RecordingBrain, Transcript
from automl_agent.agents.brains.scripted import ScriptedBrain
from automl_agent.agents.contracts import DataAnalysis, Plan, TaskType
from automl_agent.data.profile import profile_table

WRONG_SPEC = {
    "problem": {"downstream_task": "tabular_regression", "metric": "rmse", "metric_direction": "maximize",
                "constraints": [{"name": "f1", "op": ">=", "target": 0.9}]},
    "dataset": {"target": "no_such_column"},
}


def test_wrong_task_target_metric_and_numbers_are_corrected(churn_frame):
    profile = profile_table(churn_frame, "churn.csv")
    brain = RecordingBrain(ScriptedBrain({"prompt.parse_instruction": [WRONG_SPEC]}), Transcript())
    spec, notes = prompt_agent.parse_instruction(brain, "Predict customer churn. F1 at least 0.55.", profile)
    assert spec.dataset.target == "churn"
    assert spec.problem.downstream_task == TaskType.tabular_classification
    assert spec.problem.metric in {"f1", "accuracy"} and spec.problem.metric_direction == "maximize"
    assert [c.describe() for c in spec.problem.constraints] == ["f1 >= 0.55"]
    assert len(notes) >= 3
    assert brain.transcript.records[0].corrections == notes


def test_unknown_models_and_broken_search_spaces_fall_back_to_the_knowledge_base(churn_frame):
    profile = profile_table(churn_frame, "churn.csv")
    scripted = ScriptedBrain({"model.propose": [{"candidates": [
        {"model": "gpt-7-tabular", "hyperparameters": {}},
        {"model": "lightgbm", "search_space": {"num_leaves": {"type": "int", "low": 100, "high": 2}}},
    ]}]})
    brain = RecordingBrain(scripted, Transcript())
    spec, _ = prompt_agent.parse_instruction(brain, "Predict churn", profile)
    plan = Plan(plan_id=1, title="t", rationale="r", data_steps=[], model_families=["lightgbm"])
    analysis = DataAnalysis(summary="", features=["tenure"], numeric=["tenure"], categorical=[], preprocessing=[])
    proposal = model_agent.propose(brain, spec, plan, analysis, top_k=3)
    assert [c.model for c in proposal.candidates] == ["lightgbm"]
    assert proposal.candidates[0].search_space["num_leaves"]["low"] < proposal.candidates[0].search_space["num_leaves"]["high"]


def test_a_task_chosen_without_a_target_is_judged_on_the_target_that_will_be_used(churn_frame):
    """A weak model once answered text_classification with no target for the churn table: with no target named,
    the task looked as if it fitted, and the run trained a text pipeline on a table."""
    profile = profile_table(churn_frame, "churn.csv")
    answer = {"problem": {"downstream_task": "text_classification", "metric": "accuracy"}, "dataset": {"target": None}}
    brain = RecordingBrain(ScriptedBrain({"prompt.parse_instruction": [answer]}), Transcript())
    spec, notes = prompt_agent.parse_instruction(brain, "Build a model to predict customer churn.", profile)
    assert spec.dataset.target == "churn"
    assert spec.problem.downstream_task == TaskType.tabular_classification
    assert any(n.startswith("target set to 'churn'") for n in notes)
    assert any(n.startswith("task text_classification does not fit the data") for n in notes)


def test_accuracy_chosen_unasked_on_a_rare_class_becomes_f1_and_a_grouping_request_stays_clustering(churn_frame):
    """What the tiny gguf model did on the second holdout corpus: accuracy for 'which customers will leave' (26 %
    churn), and a classification with no target for 'find natural families ... I don't have labels'."""
    profile = profile_table(churn_frame, "churn.csv")
    accuracy = {"problem": {"downstream_task": "tabular_classification", "metric": "accuracy"},
                "dataset": {"target": "churn"}}
    no_target = {"problem": {"downstream_task": "tabular_classification", "metric": "accuracy"},
                 "dataset": {"target": None}}
    brain = RecordingBrain(ScriptedBrain({"prompt.parse_instruction": [accuracy, no_target, accuracy]}), Transcript())
    spec, notes = prompt_agent.parse_instruction(brain, "Which of our customers are going to leave soon?", profile)
    assert spec.problem.metric == "f1" and any("replaced by 'f1'" in n for n in notes)
    spec, _ = prompt_agent.parse_instruction(
        brain, "Are there natural families of customers in here? Cluster them, I don't have labels.", profile)
    assert spec.problem.downstream_task == TaskType.tabular_clustering and spec.dataset.target is None
    spec, _ = prompt_agent.parse_instruction(brain, "Which customers will leave? Report accuracy.", profile)
    assert spec.problem.metric == "accuracy"  # named: kept
