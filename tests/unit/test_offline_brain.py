from automl_agent.agents.brains.base import AgentStep, RecordingBrain, Transcript
from automl_agent.agents.brains.offline import OfflineBrain, OfflineRules
from automl_agent.agents.contracts import Knowledge, RequestVerdict, TaskType
from automl_agent.agents import manager, prompt_agent
from automl_agent.data.profile import profile_table


def test_rejects_a_request_that_is_not_ml():
    verdict = OfflineRules.verify_request("Write me a poem about the sea", {"columns": ["a"]})
    assert not verdict.ok and "machine-learning" in verdict.feedback


def test_parses_churn_instruction(churn_frame):
    profile = profile_table(churn_frame, "churn.csv")
    brain = RecordingBrain(OfflineBrain(), Transcript())
    spec, notes = prompt_agent.parse_instruction(brain, "Predict customer churn; F1 at least 0.55", profile)
    assert spec.problem.downstream_task == TaskType.tabular_classification
    assert spec.dataset.target == "churn"
    assert spec.problem.metric == "f1" and spec.problem.metric_direction == "maximize"
    assert notes == []
    assert brain.transcript.records[0].step == "prompt.parse_instruction"
    assert "Predict customer churn" in brain.transcript.records[0].prompt


def test_infers_regression_and_clustering(small_diamonds, wine_csv):
    import pandas as pd

    brain = RecordingBrain(OfflineBrain(), Transcript())
    diamonds = profile_table(pd.read_csv(small_diamonds), str(small_diamonds))
    spec, _ = prompt_agent.parse_instruction(brain, "Predict the price of a diamond", diamonds)
    assert (spec.problem.downstream_task, spec.dataset.target, spec.problem.metric) == (TaskType.tabular_regression, "price", "rmse")
    wine = profile_table(pd.read_csv(wine_csv), str(wine_csv))
    spec, _ = prompt_agent.parse_instruction(brain, "Cluster the wines into 3 groups", wine, target_override="cultivar")
    assert spec.problem.downstream_task == TaskType.tabular_clustering
    assert spec.problem.metric == "rand_index" and spec.problem.n_clusters == 3


def test_identifier_columns_are_profiled_and_dropped(churn_frame):
    frame = churn_frame.assign(customer_id=range(len(churn_frame)))
    profile = profile_table(frame, "churn.csv")
    assert profile.column("customer_id").kind == "identifier"
    brain = RecordingBrain(OfflineBrain(), Transcript())
    spec, _ = prompt_agent.parse_instruction(brain, "Predict churn", profile)
    from automl_agent.agents import data_agent
    plan = manager.make_plans(brain, spec, Knowledge(), 3)[0]
    analysis = data_agent.analyse(brain, spec, plan, profile)
    assert "customer_id" in analysis.dropped and "churn" not in analysis.features


def test_three_distinct_plans_with_known_models(churn_frame):
    from automl_agent.agents import knowledge_base as kb

    brain = RecordingBrain(OfflineBrain(), Transcript())
    profile = profile_table(churn_frame, "churn.csv")
    spec, _ = prompt_agent.parse_instruction(brain, "Predict churn", profile)
    plans = manager.make_plans(brain, spec, Knowledge(), 3)
    assert [p.plan_id for p in plans] == [1, 2, 3]
    assert len({p.title for p in plans}) == 3
    keys = set(kb.model_keys(TaskType.tabular_classification))
    assert all(set(p.model_families) <= keys for p in plans)


def test_offline_brain_refuses_unknown_steps():
    import pytest
    with pytest.raises(KeyError):
        OfflineBrain().answer(AgentStep("manager.unknown", RequestVerdict, {}))
