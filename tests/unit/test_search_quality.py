"""What the tabular search does beyond sampling: a log target where the data or the metric calls for it (raw scale
still tried), ensemble selection that must earn its place, and blends counted and sized like single models."""

from __future__ import annotations

import numpy as np
import optuna
import pandas as pd
import pytest
from sklearn.ensemble import VotingRegressor
from sklearn.linear_model import Ridge
from sklearn.pipeline import Pipeline

from automl_agent import ensembling, evaluation
from automl_agent.trainkit.estimators import prefers_log_target
from automl_agent.trainkit.runtime import FrameEncoder
from automl_agent.trainkit.search import enqueue_defaults

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("values, metric, expected", [
    (np.exp(RNG.normal(12, 0.5, 500)), "rmse", True),  # sale prices: positive, right-skewed
    (RNG.normal(30, 5, 500), "rmse", False),  # symmetric strengths
    (RNG.normal(30, 5, 500), "rmsle", True),  # the metric itself is on the log scale
    (RNG.normal(30, 5, 500), "mape", True),
    (RNG.normal(0, 5, 500), "rmsle", False),  # negative values have no log1p worth trying
    (np.r_[np.zeros(450), RNG.exponential(5, 50)], "rmse", True),  # counts with many zeros
    (np.array([1.0, 2.0, 3.0]), "rmsle", False),  # too few to judge
])
def test_a_log_target_is_tried_for_skewed_positive_targets_and_relative_metrics(values, metric, expected):
    assert prefers_log_target(pd.Series(values), metric) is expected


def test_the_log_scale_replaces_the_defaults_and_the_lead_is_also_tried_raw():
    space = {"alpha": {"type": "float", "low": 0.01, "high": 10.0}, "log_target": {"type": "categorical", "choices": [False, True]}}
    candidates = [{"model": "ridge", "hyperparameters": {"alpha": 1.0, "log_target": False}, "search_space": space},
                  {"model": "knn", "hyperparameters": {"k": 5}, "search_space": {"k": {"type": "int", "low": 1, "high": 9}}}]
    study = optuna.create_study()
    enqueue_defaults(study, candidates, overrides={"log_target": True})
    queued = [t.system_attrs["fixed_params"] for t in study.get_trials(deepcopy=False)]
    assert queued[0] == {"model": 0, "ridge.alpha": 1.0, "ridge.log_target": 1}  # log scale first
    assert queued[1] == {"model": 0, "ridge.alpha": 1.0, "ridge.log_target": 0}  # and the raw scale, for validation
    assert queued[2] == {"model": 1, "knn.k": 5}  # a candidate without the parameter is left alone
    assert len(queued) == 3


class FakeTrial:
    def __init__(self, number, value, family):
        self.number, self.value, self.user_attrs = number, value, {"model_key": family}


def _rmse(truth):
    return lambda prediction: float(np.sqrt(np.mean((prediction - truth) ** 2)))


def test_a_blend_of_two_models_with_independent_errors_is_kept():
    truth = RNG.normal(0, 1, 2000)
    oof = {0: truth + RNG.normal(0, 1, 2000), 1: truth + RNG.normal(0, 1, 2000), 2: truth + RNG.normal(0, 3, 2000)}
    score = _rmse(truth)
    trials = [FakeTrial(n, score(p), "lgbm" if n != 1 else "forest") for n, p in oof.items()]
    blend = ensembling.select(trials, oof, score, maximize=False)
    assert blend is not None and set(blend.members) >= {0, 1}
    assert blend.score < blend.best_single * 0.8  # averaging two independent errors: about 1/sqrt(2)
    assert sum(blend.weights) == pytest.approx(1.0)


def test_a_blend_leaves_out_a_member_whose_refit_would_overrun_the_run():
    """A diamonds run once blended two CatBoost and two LightGBM models whose refit on all rows took 62 s after a
    46 s search: the run took 131 s of the 120 allowed."""
    truth = RNG.normal(0, 1, 2000)
    oof = {0: truth + RNG.normal(0, 0.8, 2000), 1: truth + RNG.normal(0, 1, 2000), 2: truth + RNG.normal(0, 1, 2000)}
    score = _rmse(truth)
    trials = [FakeTrial(n, score(p), ["lgbm", "catboost", "forest"][n]) for n, p in oof.items()]  # 0 is the best
    unlimited = ensembling.select(trials, oof, score, maximize=False)
    assert set(unlimited.members) == {0, 1, 2}
    cost = {0: 5.0, 1: 40.0, 2: 6.0}
    capped = ensembling.select(trials, oof, score, maximize=False, cost=cost, max_cost=30.0)
    assert capped is not None and set(capped.members) <= {0, 1, 2} and 1 not in capped.members
    assert sum(cost[m] for m in capped.members) <= 30.0
    alone = ensembling.select(trials, oof, score, maximize=False, cost={0: 31.0, 1: 1.0, 2: 1.0}, max_cost=30.0)
    assert alone is None  # the best model's own refit fills the allowance: nothing joins it


def test_a_blend_of_near_copies_is_not_worth_it():
    truth = RNG.normal(0, 1, 2000)
    base = truth + RNG.normal(0, 1, 2000)
    oof = {0: base, 1: base + RNG.normal(0, 0.001, 2000), 2: base + 0.5}
    score = _rmse(truth)
    trials = [FakeTrial(n, score(p), "lgbm") for n, p in oof.items()]
    assert ensembling.select(trials, oof, score, maximize=False) is None


def test_the_pool_takes_each_familys_best_before_more_of_the_same():
    oof = {n: np.zeros(3) for n in range(12)}
    trials = [FakeTrial(n, 0.9 - n * 0.01, "lgbm" if n < 10 else "forest") for n in range(12)]
    pool = ensembling.pool_of(trials, oof, maximize=True, size=4)
    assert pool == [0, 1, 2, 10]  # best first; the forest's best (trial 10) is in despite ranking 11th


def test_a_fitted_blend_counts_its_members_parameters():
    X = pd.DataFrame({"a": RNG.normal(size=50), "b": RNG.normal(size=50)})
    y = X.a * 2 + RNG.normal(size=50)
    member = lambda: Pipeline([("preprocess", FrameEncoder(numeric=["a", "b"], categorical=[], scale=True)),  # noqa: E731
                               ("model", Ridge())])
    blend = VotingRegressor([("r0", member()), ("r1", member())], weights=[0.5, 0.5]).fit(X, y)
    single = evaluation.count_parameters(member().fit(X, y))
    assert evaluation.count_parameters(blend) == 2 * single


def _body_measurements(n_per_group=60, seed=0):
    """Four groups that differ in shape (ratios between five measurements) while overall size, shared by every
    measurement, varies far more than the shapes do: the structure of the crabs data."""
    rng = np.random.default_rng(seed)
    shapes = np.array([[1.0, 0.8, 2.0, 2.4, 0.9], [1.0, 0.95, 2.0, 2.3, 0.8],
                       [1.1, 0.8, 1.9, 2.2, 0.95], [1.1, 0.95, 1.9, 2.1, 0.85]])
    rows, groups = [], []
    for g, shape in enumerate(shapes):
        size = rng.lognormal(2.5, 0.3, n_per_group)[:, None]
        rows.append(size * shape * rng.lognormal(0, 0.02, (n_per_group, 5)))
        groups += [g] * n_per_group
    return np.vstack(rows), np.array(groups)


def test_a_dominant_size_factor_is_removed_and_the_groups_appear():
    from sklearn.cluster import KMeans
    from sklearn.metrics import rand_score

    from automl_agent.trainkit.clustering import choose_representation
    from automl_agent.trainkit.runtime import ClusterSpace

    values, groups = _body_measurements()
    chosen = choose_representation(values)
    assert chosen["kind"] == "log_drop1" and chosen["first_component_share"] > 0.8 and "size" in chosen["reason"]
    scores = {}
    for kind in ("scaled", "log_drop1"):
        space = ClusterSpace(n_numeric=5, kind=kind).fit_transform(values)
        scores[kind] = rand_score(groups, KMeans(4, n_init=10, random_state=0).fit_predict(space))
    assert scores["scaled"] < 0.8 and scores["log_drop1"] > 0.95


@pytest.mark.parametrize("values, kind", [
    (RNG.normal(0, 1, (200, 4)), "scaled"),  # negative values: no logs
    (np.abs(RNG.normal(5, 1, (200, 4))), "scaled"),  # independent measurements: no common factor
    (np.abs(RNG.normal(5, 1, (200, 2))), "scaled"),  # too few columns to speak of a factor
])
def test_tables_without_a_size_factor_are_standardised_as_before(values, kind):
    from automl_agent.trainkit.clustering import choose_representation

    assert choose_representation(values)["kind"] == kind


def test_the_cluster_space_keeps_one_hot_columns_and_is_fitted_on_training_rows_only():
    from automl_agent.trainkit.runtime import ClusterSpace

    values, _ = _body_measurements(20)
    with_one_hot = np.hstack([values, np.eye(2)[np.arange(len(values)) % 2]])
    space = ClusterSpace(n_numeric=5, kind="log_drop1").fit(with_one_hot[:60])
    out = space.transform(with_one_hot)
    assert out.shape == (80, 7) and np.array_equal(out[:, 5:], with_one_hot[:, 5:])
    assert np.allclose(out[:60, :5].mean(axis=0), 0, atol=1e-9)  # centred on the rows it was fitted on



def test_warm_starts_follow_every_default_and_keep_the_log_scale():
    space = {"n_estimators": {"type": "int", "low": 100, "high": 1500},
             "log_target": {"type": "categorical", "choices": [False, True]}}
    candidates = [{"model": "lightgbm", "hyperparameters": {"n_estimators": 100, "log_target": False}, "search_space": space,
                   "warm_starts": [{"n_estimators": 1000}, {"n_estimators": 5000}]},
                  {"model": "ridge", "hyperparameters": {}, "search_space": {}}]
    study = optuna.create_study()
    assert enqueue_defaults(study, candidates, overrides={"log_target": True}) == 5
    queued = [t.system_attrs["fixed_params"] for t in study.get_trials(deepcopy=False)]
    assert [q["model"] for q in queued] == [0, 0, 1, 0, 0]  # defaults (log, raw), the other default, then warm starts
    assert queued[3] == {"model": 0, "lightgbm.n_estimators": 1000, "lightgbm.log_target": 1}
    assert queued[4]["lightgbm.n_estimators"] == 1500  # clamped into the searched range


def test_warm_starts_can_be_tried_on_both_scales_for_a_blend():
    space = {"n_estimators": {"type": "int", "low": 10, "high": 5000},
             "log_target": {"type": "categorical", "choices": [False, True]}}
    candidates = [{"model": "lightgbm", "hyperparameters": {"n_estimators": 100}, "search_space": space,
                   "warm_starts": [{"n_estimators": 1000}]},
                  {"model": "knn", "hyperparameters": {"k": 5}, "search_space": {"k": {"type": "int", "low": 1, "high": 9}},
                   "warm_starts": [{"k": 7}]}]
    study = optuna.create_study()
    assert enqueue_defaults(study, candidates, overrides={"log_target": True}, warm_starts_both_ways=True) == 6
    queued = [t.system_attrs["fixed_params"] for t in study.get_trials(deepcopy=False)]
    assert queued[3:] == [{"model": 0, "lightgbm.n_estimators": 1000, "lightgbm.log_target": 1},
                          {"model": 0, "lightgbm.n_estimators": 1000, "lightgbm.log_target": 0},
                          {"model": 1, "knn.k": 7}]  # no scale to change: once


def test_the_knowledge_bases_warm_starts_reach_the_training_script():
    from automl_agent.agents import knowledge_base as kb
    from automl_agent.agents.contracts import TaskType

    for task in (TaskType.tabular_classification, TaskType.tabular_regression):
        assert kb.models(task)["lightgbm"]["warm_starts"]
        for key, info in kb.models(task).items():
            space = info["space"]
            for w in info.get("warm_starts", []):
                values = {k: v for k, v in w.items() if k != "min_rows"}  # min_rows says where it applies
                assert set(values) <= set(space), (task, key)
                for name, value in values.items():
                    assert space[name]["low"] <= value <= space[name]["high"], (task, key, name)


def test_a_warm_start_for_large_tables_is_left_out_on_small_ones():
    space = {"depth": {"type": "int", "low": 4, "high": 8}}
    candidates = [{"model": "catboost", "hyperparameters": {"depth": 6}, "search_space": space,
                   "warm_starts": [{"depth": 8, "min_rows": 20000}, {"depth": 5}]}]
    for n_rows, expected in ((1500, [6, 5]), (30000, [6, 8, 5])):
        study = optuna.create_study()
        enqueue_defaults(study, candidates, n_rows=n_rows)
        assert [t.system_attrs["fixed_params"]["catboost.depth"] for t in study.get_trials(deepcopy=False)] == expected


def test_the_run_says_how_many_trials_were_stopped_or_not_started():
    from automl_agent.flows.phases import search_notes as _search_notes

    notes = _search_notes({"n_trials": 9, "n_pruned": 13, "n_skipped": 2})
    assert notes == ["9 trials finished; 13 stopped early by successive halving; 2 sampled points not tried: they "
                     "would have run past the budget"]
    assert _search_notes({"n_trials": 9, "n_pruned": 0, "n_skipped": 0}) == []
