"""A split's rows are at hand at any size: listed in split.json where few, in split_rows.npz where many, and
read back the same way by the baseline, the report's evidence and the monitoring reference (issue 30: at 3.4M rows
the cluster trainer listed none, so FLAML could not be scored on its split)."""

from __future__ import annotations

import json

from automl_agent.trainkit import splits


def _written(tmp_path, train, test):
    entries = splits.split_rows_entries(train, test, tmp_path)
    (tmp_path / "split.json").write_text(json.dumps({"features": ["a"], "target": "y", **entries}))
    return entries


def test_few_rows_are_listed_in_the_split(tmp_path):
    entries = _written(tmp_path, [0, 2, 3], [1, 4])
    assert entries == {"train_index": [0, 2, 3], "test_index": [1, 4]}
    assert not (tmp_path / splits.ROWS_FILE).exists()
    assert splits.read_split(tmp_path / "split.json")["test_index"] == [1, 4]


def test_many_rows_go_to_a_file_beside_the_split_and_read_back_alike(tmp_path, monkeypatch):
    monkeypatch.setattr(splits, "LISTED_ROWS", 4)
    entries = _written(tmp_path, [0, 2, 3, 5], [1, 4])
    assert entries == {"rows_file": splits.ROWS_FILE} and (tmp_path / splits.ROWS_FILE).is_file()
    split = splits.read_split(tmp_path / "split.json")
    assert (split["train_index"], split["test_index"], split["target"]) == ([0, 2, 3, 5], [1, 4], "y")
