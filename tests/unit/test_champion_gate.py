"""The champion gate: a new version takes @champion only by answering better than a constant, at least as well as
the current champion on the same held-out rows, with the same inputs; the scores it compares are measured in the
flow on those rows."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from automl_agent.serving.champion import (Rival, contract_difference, decide, input_contract,
                                               no_better_than_constant)
from automl_agent.reporting.evidence import HeldOutEvidence, collect

SCHEMA = {"task": "tabular_classification", "target": "left",
          "columns": [{"name": "tenure", "type": "number", "min": 0, "max": 71, "integer": True},
                      {"name": "plan", "type": "category", "levels": ["basic", "plus", "pro"]}]}


def _evidence(task: str, truth: list, said: list, scores: dict | None = None) -> HeldOutEvidence:
    return HeldOutEvidence(task=task, n_rows=len(truth), y_true=truth, y_pred=said, scores=scores or {})


def _rival(score: float | None, contract: dict | None = None, version: str = "1") -> Rival:
    evidence = None if score is None else HeldOutEvidence(task="tabular_classification", scores={"f1": score})
    return Rival(version=version, schema_contract=contract or input_contract(SCHEMA), evidence=evidence)


GOOD = _evidence("tabular_classification", ["no", "yes", "no", "yes"], ["no", "yes", "no", "no"], {"f1": 0.67})


def test_the_first_version_that_meets_its_requirements_is_champion():
    standing = decide(metric="f1", evidence=GOOD, run_passed=True, rival=None, contract=input_contract(SCHEMA))
    assert standing.alias == "champion" and "first version" in standing.reason and standing.score == 0.67


def test_a_worse_version_waits_as_challenger_with_both_scores():
    standing = decide(metric="f1", evidence=GOOD, run_passed=True, rival=_rival(0.8, version="3"),
                      contract=input_contract(SCHEMA))
    assert standing.alias == "challenger" and standing.champion_version == "3" and standing.champion_score == 0.8
    assert "0.67" in standing.reason and "0.8" in standing.reason and "same 4 held-out rows" in standing.reason


def test_an_equal_or_better_version_takes_the_alias_and_losses_compare_downwards():
    assert decide(metric="f1", evidence=GOOD, run_passed=True, rival=_rival(0.67), contract=input_contract(SCHEMA)).alias == "champion"
    regression = _evidence("tabular_regression", [1.0, 2.0, 3.0, 4.0], [1.1, 2.1, 2.9, 3.8], {"rmse": 0.13, "r2": 0.98})
    same = {"task": "tabular_regression"}
    worse_rival = Rival(version="2", schema_contract=same, evidence=HeldOutEvidence(task="tabular_regression", scores={"rmse": 0.2}))
    better_rival = Rival(version="2", schema_contract=same, evidence=HeldOutEvidence(task="tabular_regression", scores={"rmse": 0.1}))
    assert decide(metric="rmse", evidence=regression, run_passed=True, rival=worse_rival, contract=same).alias == "champion"
    assert decide(metric="rmse", evidence=regression, run_passed=True, rival=better_rival, contract=same).alias == "challenger"
    unreadable = Rival(version="5", schema_contract={}, unmeasured="its serving schema could not be read")
    standing = decide(metric="rmse", evidence=regression, run_passed=True, rival=unreadable, contract=same)
    assert standing.alias == "challenger" and "could not be measured (its serving schema" in standing.reason


def test_a_run_that_missed_a_requirement_is_a_candidate_whatever_it_scores():
    standing = decide(metric="f1", evidence=GOOD, run_passed=False, run_reason="latency 40 ms > 10 ms", rival=None,
                      contract=input_contract(SCHEMA))
    assert standing.alias == "candidate" and "latency 40 ms" in standing.reason


def test_a_constant_answer_never_becomes_champion_even_when_it_clears_the_bound():
    # predicting 'yes' for everyone: F1 = 2p / (1 + p) = 0.42 for a 26 % positive class clears "F1 at least 0.3"
    truth = ["yes"] * 26 + ["no"] * 74
    constant = _evidence("tabular_classification", truth, ["yes"] * 100, {"f1": 0.41})
    standing = decide(metric="f1", evidence=constant, run_passed=True, rival=None, contract=input_contract(SCHEMA))
    assert standing.alias == "candidate" and "same answer ('yes') for all 100" in standing.reason


def test_chance_level_classifiers_and_regressors_worse_than_the_mean_carry_no_information():
    truth = ["a", "b"] * 50
    assert "chance" in no_better_than_constant(_evidence("tabular_classification", truth, ["b", "a"] * 50))
    assert no_better_than_constant(_evidence("tabular_classification", truth, truth)) == ""
    flat = _evidence("tabular_regression", [1.0, 2.0], [1.5, 1.5], {"r2": -0.01})
    assert "mean" in no_better_than_constant(flat)


def test_changed_inputs_never_take_the_alias_silently():
    narrower = input_contract({**SCHEMA, "columns": SCHEMA["columns"][:1]})
    standing = decide(metric="f1", evidence=GOOD, run_passed=True, rival=_rival(None), contract=narrower)
    assert standing.alias == "challenger" and "1 input(s) dropped (plan)" in standing.reason
    assert "promote" in standing.reason
    allowed = decide(metric="f1", evidence=GOOD, run_passed=True, rival=_rival(None), contract=narrower,
                     allow_schema_change=True)
    assert allowed.alias == "champion" and "as asked" in allowed.reason


def test_the_input_contract_ignores_drift_in_ranges_and_levels_but_not_kinds():
    drifted = {**SCHEMA, "columns": [{**SCHEMA["columns"][0], "max": 99}, {**SCHEMA["columns"][1], "levels": ["x"]}]}
    assert contract_difference(input_contract(SCHEMA), input_contract(drifted)) == ""
    retyped = {**SCHEMA, "columns": [{"name": "tenure", "type": "category"}, SCHEMA["columns"][1]]}
    assert "changed kind: tenure" in contract_difference(input_contract(SCHEMA), input_contract(retyped))
    assert "target 'left' -> 'plan'" in contract_difference(input_contract(SCHEMA), input_contract({**SCHEMA, "target": "plan"}))


def test_an_unmeasurable_champion_is_not_replaced_without_a_person():
    rival = Rival(version="4", schema_contract=input_contract(SCHEMA), unmeasured="its model could not be loaded: gone")
    standing = decide(metric="f1", evidence=GOOD, run_passed=True, rival=rival, contract=input_contract(SCHEMA))
    assert standing.alias == "challenger" and "could not be loaded" in standing.reason


@pytest.fixture()
def churn_like(tmp_path):
    rng = np.random.default_rng(0)
    n = 600
    tenure = rng.integers(0, 72, n)
    plan = rng.choice(["basic", "plus", "pro"], n)
    frame = pd.DataFrame({"tenure": tenure, "plan": plan,
                          "left": np.where(tenure + rng.normal(0, 8, n) < 18, "yes", "no")})
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    train, test = train_test_split(frame.index, test_size=0.3, random_state=0)
    (tmp_path / "split.json").write_text(json.dumps({"features": ["tenure", "plan"], "target": "left",
                                                     "train_index": list(map(int, train)),
                                                     "test_index": list(map(int, test))}))
    return frame, data, train


def _pipeline(estimator):
    encode = ColumnTransformer([("n", StandardScaler(), ["tenure"]), ("c", OneHotEncoder(), ["plan"])])
    return Pipeline([("encode", encode), ("model", estimator)])


def test_both_models_are_scored_by_the_same_measure_on_the_same_rows(churn_like, tmp_path):
    frame, data, train = churn_like
    X, y = frame.loc[train, ["tenure", "plan"]], frame.loc[train, "left"]
    fitted = _pipeline(LogisticRegression()).fit(X, y)
    constant = _pipeline(DummyClassifier(strategy="constant", constant="yes")).fit(X, y)
    new = collect(fitted, "tabular_classification", str(data), tmp_path, SCHEMA, pos_label="yes")
    old = collect(constant, "tabular_classification", str(data), tmp_path, SCHEMA, pos_label="yes", pictures=False)
    assert new.n_rows == old.n_rows == 180 and not old.feature_importance and new.feature_importance
    assert new.scores["f1"] > 0.7 and 0.2 < old.scores["f1"] < 0.6 and "roc_auc" in new.scores
    assert no_better_than_constant(old) and not no_better_than_constant(new)
    standing = decide(metric="f1", evidence=old, run_passed=True, contract=input_contract(SCHEMA),
                      rival=Rival(version="1", schema_contract=input_contract(SCHEMA), evidence=new))
    assert standing.alias == "candidate"  # the constant loses before it is even compared


def test_aliases_move_with_their_reasons_and_a_rollback_retraces_the_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default experiment keeps its artifacts in ./mlruns: not in the checkout
    # mlflow.set_tracking_uri exports MLFLOW_TRACKING_URI: later CLI runs of this session would track into this store
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "sqlite:///unused")
    import mlflow
    from mlflow.tracking import MlflowClient

    from automl_agent.serving import aliases
    from automl_agent.errors import UserFacingError
    from automl_agent.workspace import Standing

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(uri)
    client.create_registered_model("gate")
    for _ in range(3):
        with mlflow.start_run() as run:
            mlflow.log_text("x", "x.txt")
        client.create_model_version("gate", f"runs:/{run.info.run_id}/x.txt", run.info.run_id)
    aliases.record_standing(client, "gate", "1", Standing(alias="champion", reason="first", metric="f1", score=0.6))
    aliases.record_standing(client, "gate", "2", Standing(alias="challenger", reason="f1 0.5 against 0.6", metric="f1",
                                                          score=0.5, champion_version="1", champion_score=0.6))
    assert aliases.champion_version(client, "gate") == "1"
    with pytest.raises(UserFacingError, match="reason"):
        aliases.promote(uri, "gate", "2", " ")
    with pytest.raises(UserFacingError, match="no version 7"):
        aliases.promote(uri, "gate", "7", "why not")
    moved = aliases.promote(uri, "gate", "2", "easier to audit")
    assert (moved.previous, moved.version) == ("1", "2")
    rows = {r.version: r for r in aliases.list_versions(uri, "gate")}
    assert rows["2"].aliases == ["champion"]  # no longer the challenger too
    assert rows["2"].reason == "f1 0.5 against 0.6" and "easier to audit" in rows["2"].last_move
    assert rows["2"].score == "f1 0.5"
    aliases.promote(uri, "gate", "3", "hotfix")
    assert aliases.rollback(uri, "gate", None, "hotfix broke EU rows").version == "2"
    assert aliases.rollback(uri, "gate", None, "").version == "1"
    with pytest.raises(UserFacingError, match="no earlier champion"):
        aliases.rollback(uri, "gate", None, "")
    assert [m.version for m in aliases.history_of(uri, "gate")] == ["1", "2", "3", "2", "1"]


def test_a_clusterer_without_an_encoder_is_scored_by_its_own_answers(churn_like, tmp_path):
    from sklearn.cluster import KMeans

    from automl_agent.trainkit.evaluation import clustering_metrics

    frame, data, train = churn_like
    model = KMeans(n_clusters=2, n_init=3, random_state=0).fit(frame.loc[train, ["tenure"]])
    split = json.loads((tmp_path / "split.json").read_text())
    (tmp_path / "split.json").write_text(json.dumps({**split, "features": ["tenure"]}))
    evidence = collect(model, "tabular_clustering", str(data), tmp_path, {"target": "left"}, pictures=False)
    expected = clustering_metrics(None, evidence.y_pred, evidence.y_true)
    assert evidence.scores == expected and "silhouette" not in evidence.scores and expected["rand_index"] > 0.5
