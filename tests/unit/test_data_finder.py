"""The data agent's search when no --data is given: datasets named the way people name them, found offline; a
different dataset with a similar name is not passed off as this one."""

from __future__ import annotations

import pandas as pd
import pytest

from automl_agent.data.finder import candidate_names, find_and_snapshot, find_offline, resolve_reference
from automl_agent.errors import UserFacingError

FOUND = [
    ("Classify iris flowers by species", "iris"),
    ("iris classification pls, highest accuracy you can get", "iris"),
    ("Can you group the Palmer penguins into clusters and compare with the species?", "penguins"),
    ("Train something that tells malignant from benign breast tumours", "breast_cancer"),
    ("How well can we predict diabetes progression one year out?", "diabetes"),
    ("recognise handwritten digits (the small 8x8 ones)", "digits"),
    ("Predict diamond prices, RMSE under 600", "diamonds"),
    ("which telco customers are about to churn?", "churn"),
    ("Estimate the compressive strength of a concrete mix", "concrete"),
    ("spam filter for SMS messages", "sms_spam"),
    ("forecast the oil temperature of the electricity transformer 24 hours ahead", "ETTh1"),
    ("Forecast electricity demand in Victoria", "elecdemand"),
    ("Sentiment of food reviews: great or not?", "food_reviews"),
    ("Classify the papers of the Cora citation graph by topic", "cora"),
    ("Cluster the wines into 3 groups", "wine"),
    ("Does a smoking ban at work make people quit?", "smokeban"),
]
NOT_FOUND = [
    "Predict wine quality from the chemistry",          # the red/white wine quality data, not the cultivars
    "Build a spam filter for our support emails",        # email, not SMS
    "Predict whether a Pima patient has diabetes",       # Pima, not scikit-learn's progression data
    "Predict churn for our bank's credit card holders",  # a bank's customers, not the telco's
    "Classify MNIST digits",                             # MNIST, not the 8x8 digits
    "Predict house prices",
    "",
]


@pytest.mark.parametrize("instruction,name", FOUND)
def test_a_named_dataset_is_found_offline(instruction, name):
    assert [entry.name for entry, _ in find_offline(instruction)] == [name]


@pytest.mark.parametrize("instruction", NOT_FOUND)
def test_a_dataset_that_is_not_here_is_not_guessed(instruction, tmp_path):
    assert find_offline(instruction) == []
    with pytest.raises(UserFacingError) as raised:
        find_and_snapshot(instruction, tmp_path, allow_remote=False)
    assert "--data" in raised.value.hint and not (tmp_path / "inputs").exists()
    if "your own data" not in raised.value.problem:  # 'our support emails' is the user's data: asked for it instead
        assert "names no dataset" in raised.value.problem and "openml://" in raised.value.hint
        assert "iris" in raised.value.hint  # what is available offline is listed


@pytest.mark.parametrize("instruction", [
    "Predict churn for our telco customers",
    "Cluster these wines into 3 groups",
    "classify my iris photos... I mean measurements",
    "Use the attached diamonds file to predict price",
    "this spreadsheet has penguin measurements, group them",
])
def test_own_data_without_a_file_is_a_question_not_a_public_lookalike(instruction, tmp_path):
    with pytest.raises(UserFacingError) as raised:
        find_and_snapshot(instruction, tmp_path, allow_remote=False)
    assert "your own data" in raised.value.problem and "--data PATH" in raised.value.hint
    assert not (tmp_path / "inputs").exists()


def test_two_datasets_named_is_a_question(tmp_path):
    with pytest.raises(UserFacingError, match="more than one dataset"):
        find_and_snapshot("Compare iris and penguins", tmp_path, allow_remote=False)


def test_a_package_dataset_is_snapshotted_with_readable_labels_and_cited(tmp_path):
    path, source = find_and_snapshot("Classify iris flowers by species", tmp_path)
    frame = pd.read_csv(path)
    assert path.startswith(str(tmp_path)) and frame.shape == (150, 5)
    assert sorted(frame["species"].unique()) == ["setosa", "versicolor", "virginica"]
    assert (source.name, source.source, source.rows) == ("iris", "sklearn", 150)
    assert source.licence.startswith("CC BY 4.0") and "iris flowers" in source.reason


def test_a_bundled_graph_is_copied_as_a_folder(tmp_path):
    path, source = find_and_snapshot("node classification on cora", tmp_path)
    assert path.endswith("cora") and (tmp_path / "inputs" / "cora" / "ind.cora.x").exists()
    assert source.source == "bundled"


def test_a_graph_shipped_in_pytorch_geometric_is_written_as_nodes_and_edges(tmp_path):
    pytest.importorskip("torch_geometric")
    path, source = find_and_snapshot("find the two factions in Zachary's karate club", tmp_path)
    assert (tmp_path / "inputs" / "karate" / "edges.csv").exists() and path.endswith("karate")
    assert (source.source, source.rows) == ("torch_geometric", 34)


def test_names_people_give_public_datasets():
    assert candidate_names("Train on the titanic dataset to predict survival") == ["titanic"]
    assert candidate_names("Use 'credit-g' and predict good or bad credit") == ["credit-g"]
    assert candidate_names("predict churn from this data") == []


def test_a_bare_name_given_as_data_is_the_offline_dataset_of_that_name(tmp_path):
    path, source = resolve_reference("Penguins", tmp_path)
    assert source.name == "penguins" and source.source == "bundled" and path.endswith("penguins.csv")
    assert "--data names the dataset" in source.reason


def test_a_path_or_an_unknown_name_is_left_to_the_reader(tmp_path):
    (tmp_path / "penguins").write_text("a,b\n1,2\n")
    assert resolve_reference(str(tmp_path / "penguins"), tmp_path) is None
    assert resolve_reference("pengwins", tmp_path) is None
    assert resolve_reference("data/penguins.csv", tmp_path) is None


def test_a_mistyped_name_is_offered_the_offline_dataset_it_is_near(tmp_path):
    from automl_agent.data.io import read_table

    with pytest.raises(UserFacingError, match=r"did you mean --data penguins\?") as refused:
        read_table(tmp_path / "pengwins")
    assert "penguins" in refused.value.hint
    with pytest.raises(UserFacingError) as unknown:
        read_table(tmp_path / "quarterly_numbers")
    assert "did you mean" not in str(unknown.value)
