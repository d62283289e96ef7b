"""Node classification: reading both graph formats, splitting, the models, and the agents' decisions on graphs."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from automl_agent.agents.brains.offline import OfflineRules
from automl_agent.agents.contracts import TaskType
from automl_agent.agents.prompt_agent import cross_check
from automl_agent.data.library_datasets import graph_folder
from automl_agent.data.graph import is_graph_input, load_graph, profile_graph, split_nodes
from automl_agent.data.inputs import read_input
from automl_agent.errors import UserFacingError
from automl_agent.trainkit.graph_model import GraphNodeClassifier, UnknownNodeError
from tests.conftest import DATASETS

CORA = DATASETS / "cora"


@pytest.fixture(scope="module")
def karate(tmp_path_factory):
    return graph_folder("karate", tmp_path_factory.mktemp("karate"))


@pytest.fixture(scope="module")
def cora():
    return load_graph(CORA)


def test_planetoid_files_load_with_their_own_split(cora):
    assert cora.n_nodes == 2708 and cora.features.shape == (2708, 1433) and cora.edges.shape == (2, 10556)
    train, val, test, source = split_nodes(cora)
    assert (len(train), len(val), len(test)) == (140, 500, 1000) and "own" in source
    assert not set(train) & set(test) and not set(val) & set(test)


def test_a_folder_above_raw_is_found(tmp_path):
    raw = tmp_path / "Cora" / "raw"
    raw.mkdir(parents=True)
    for part in CORA.iterdir():
        (raw / part.name).write_bytes(part.read_bytes())
    assert is_graph_input(tmp_path) and load_graph(tmp_path).n_nodes == 2708


def test_a_missing_planetoid_part_is_named(tmp_path):
    for part in CORA.iterdir():
        if not part.name.endswith(".tx"):
            (tmp_path / part.name).write_bytes(part.read_bytes())
    with pytest.raises(UserFacingError, match=r"lack ind\.cora\.tx"):
        load_graph(tmp_path)


def test_an_edge_list_without_features_gets_identity_features_and_a_stratified_split(karate):
    graph = load_graph(karate)
    assert graph.n_nodes == 34 and graph.edges.shape[1] == 156  # 78 friendships, both directions
    assert graph.features.shape == (34, 34) and "identity" in graph.feature_kind
    assert graph.label_column == "community" and graph.masks is None
    train, val, test, source = split_nodes(graph, test_size=0.2)
    assert len(train) + len(val) + len(test) == 34 and "stratified" in source
    assert len(np.unique(np.concatenate([train, val, test]))) == 34


def test_a_nodes_table_with_features_split_column_and_unlabelled_nodes(tmp_path):
    nodes = pd.DataFrame({"id": [f"n{i}" for i in range(30)], "x1": np.arange(30.0), "colour": ["red", "blue"] * 15,
                          "kind": ["a", "b", "c"] * 10, "split": ["train"] * 20 + ["val"] * 4 + ["test"] * 6})
    nodes.loc[0, "kind"] = None  # an unlabelled node stays in the graph
    nodes.to_csv(tmp_path / "nodes.csv", index=False)
    pd.DataFrame({"src": [f"n{i}" for i in range(29)], "dst": [f"n{i + 1}" for i in range(29)]}).to_csv(
        tmp_path / "edges.csv", index=False)
    assert is_graph_input(tmp_path / "nodes.csv")  # the node table with edges.csv beside it
    graph = load_graph(tmp_path / "nodes.csv", target="kind")
    assert graph.node_column == "id" and graph.feature_names == ["x1", "colour_blue", "colour_red"]
    assert graph.labels[0] == "" and 0 not in graph.labelled
    train, val, test, source = split_nodes(graph)
    assert 0 not in train and len(val) == 4 and len(test) == 6 and "own" in source


def test_edges_naming_unknown_nodes_are_refused_clearly(tmp_path):
    pd.DataFrame({"node": range(25), "label": ["a", "b"] * 12 + ["a"]}).to_csv(tmp_path / "nodes.csv", index=False)
    pd.DataFrame({"source": [0, 1], "target": [1, 77]}).to_csv(tmp_path / "edges.csv", index=False)
    with pytest.raises(UserFacingError, match=r"1 node\(s\) that are not in the node table.*'77'"):
        load_graph(tmp_path)


def test_a_folder_that_is_no_graph_says_what_is_expected(tmp_path):
    with pytest.raises(UserFacingError, match="nodes.csv and edges.csv"):
        read_input(tmp_path)


@pytest.mark.parametrize("kind, floor", [("gcn", 0.75), ("label_propagation", 0.65), ("sgc", 0.7)])
def test_models_learn_cora_and_survive_pickling(cora, kind, floor):
    train, val, test, _ = split_nodes(cora)
    params = {"lr": 0.2, "weight_decay": 5e-5} if kind == "sgc" else {}
    model = GraphNodeClassifier(kind=kind, epochs=100, patience=20, **params).fit(cora, train, val)
    accuracy = float((model.predict(cora.node_ids[test]) == cora.labels[test]).mean())
    assert accuracy >= floor  # the published figures: GCN 0.81, SGC 0.81, label propagation about 0.68-0.71
    restored = pickle.loads(pickle.dumps(model))
    frame = pd.DataFrame({"node": cora.node_ids[test[:20]]})
    assert (restored.predict(frame) == model.predict(frame)).all()
    with pytest.raises(UnknownNodeError, match="unknown node"):
        restored.predict(["no-such-paper"])


def test_the_graph_ignoring_mlp_is_worse_than_gcn_on_cora(cora):
    train, val, test, _ = split_nodes(cora)
    scores = {kind: float((GraphNodeClassifier(kind=kind, epochs=100, patience=20).fit(cora, train, val)
                           .predict(cora.node_ids[test]) == cora.labels[test]).mean()) for kind in ("gcn", "feature_mlp")}
    assert scores["gcn"] > scores["feature_mlp"] + 0.1


def test_the_agents_plan_node_classification_for_a_graph(karate):
    _, profile = read_input(karate)
    assert profile.graph is not None and profile.graph.n_edges == 78 and profile.target_candidates == ["community"]
    spec = OfflineRules.parse_instruction("Predict each member's community.", profile, [], [])
    assert spec.problem.downstream_task == TaskType.node_classification and spec.dataset.target == "community"
    assert spec.problem.metric == "accuracy" and spec.dataset.modality == "graph"
    wrong = spec.model_copy(deep=True)
    wrong.problem.downstream_task = TaskType.tabular_classification  # a brain that takes the node table for a table
    fixed, notes = cross_check(wrong, "Predict each member's community.", profile, None)
    assert fixed.problem.downstream_task == TaskType.node_classification and any("does not fit" in n for n in notes)


def test_a_table_is_never_taken_for_a_graph(churn_frame):
    from automl_agent.data.profile import profile_table

    profile = profile_table(churn_frame.head(200), "churn.csv")
    spec = OfflineRules.parse_instruction("Predict churn.", profile, [], [])
    wrong = spec.model_copy(deep=True)
    wrong.problem.downstream_task = TaskType.node_classification
    fixed, _ = cross_check(wrong, "Predict churn.", profile, None)
    assert fixed.problem.downstream_task == TaskType.tabular_classification


def test_label_homophily_leaves_out_test_nodes(cora):
    profile = profile_graph(cora, "cora")
    assert profile.graph.own_split == {"train": 140, "val": 500, "test": 1000}
    assert 0.7 < profile.graph.label_homophily < 0.95


def test_any_label_column_of_the_node_table_can_be_the_target(tmp_path):
    nodes = pd.DataFrame({"node": range(80), "size": np.arange(80.0), "colour": ["red", "blue"] * 40,
                          "kind": ["a", "b", "c", "d"] * 20})
    nodes.to_csv(tmp_path / "nodes.csv", index=False)
    pd.DataFrame({"source": range(79), "target": range(1, 80)}).to_csv(tmp_path / "edges.csv", index=False)
    _, profile = read_input(tmp_path)
    assert {"size", "colour", "kind"} <= set(profile.names)
    spec = OfflineRules.parse_instruction("Predict the colour of each node.", profile, [], [])
    assert spec.dataset.target == "colour" and spec.problem.downstream_task == TaskType.node_classification
    assert load_graph(tmp_path, target="colour").feature_names == ["size", "kind_a", "kind_b", "kind_c", "kind_d"]
    with pytest.raises(UserFacingError, match="label column with a few classes"):
        cross_check(spec, "Predict the colour of each node.", profile, "size")
