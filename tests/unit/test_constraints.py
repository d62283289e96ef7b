import pytest

from automl_agent.agents.constraints import parse_constraints, reconcile, requested_clusters
from automl_agent.agents.contracts import Constraint


def described(text):
    return sorted(c.describe() for c in parse_constraints(text))


@pytest.mark.parametrize("text, expected", [
    ("Build a model to predict customer churn. F1 should be at least 0.55 and one prediction must take under 10 ms.",
     ["f1 >= 0.55", "latency_ms < 10"]),  # "under" is strict; "at most" is not
    ("Predict price; RMSE below 600, model size under 5 MB, inference latency < 2 ms",
     ["latency_ms < 2", "model_size_mb < 5", "rmse < 600"]),
    ("classify with accuracy of 90% or more under 200 M parameters and under 200 ms per prediction",
     ["accuracy >= 0.9", "latency_ms < 200", "n_parameters < 2e+08"]),
    ("achieve an RMSLE no more than 0.1 and training under 2 minutes", ["rmsle <= 0.1", "training_time_s < 120"]),
    ("Each request has to be answered in less than fifteen milliseconds", ["latency_ms < 15"]),
    ("recall of at least ninety percent, the model no bigger than 500 KB", ["model_size_mb <= 0.5", "recall >= 0.9"]),
    ("it must respond in 5 ms or less, and AUC of 0.8 or better", ["latency_ms <= 5", "roc_auc >= 0.8"]),
    ("accuracy is not what we care about; use F1", []),
    ("accuracy not less than 0.8", ["accuracy >= 0.8"]),
    ("Cluster the wines", []),
    ("F1 of at least zero point six, under three milliseconds per prediction", ["f1 >= 0.6", "latency_ms < 3"]),
    ("an R2 of zero point eight five or better", ["r2 >= 0.85"]),
])
def test_parses_numbers_users_write(text, expected):
    assert described(text) == expected


def test_reconcile_corrects_a_wrong_number_and_adds_a_missed_constraint():
    brain_said = [Constraint(name="f1", op=">=", target=0.65), Constraint(name="accuracy", op=">=", target=0.9)]
    fixed, notes = reconcile(brain_said, "F1 at least 0.55, latency under 10 ms")
    assert sorted(c.describe() for c in fixed) == ["f1 >= 0.55", "latency_ms < 10"]
    assert any("corrected f1 >= 0.65" in n for n in notes)
    assert any("dropped accuracy" in n for n in notes)
    assert any("added latency_ms" in n for n in notes)


def test_constraint_is_met_respects_direction():
    assert Constraint(name="rmse", op="<=", target=600).is_met(550)
    assert not Constraint(name="rmse", op="<=", target=600).is_met(650)
    assert not Constraint(name="f1", op=">=", target=0.6).is_met(None)


def test_requested_clusters():
    assert requested_clusters("Cluster the wines into 3 groups") == 3
    assert requested_clusters("segment customers into five segments") == 5
    assert requested_clusters("cluster the data") is None
