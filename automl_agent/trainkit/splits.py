"""The rows a split trains and tests on: listed in split.json where they are few, in split_rows.npz beside it where
they are many (millions of row numbers as JSON are tens of megabytes to write and to parse), so a baseline and the
report's evidence score the same rows at any size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

LISTED_ROWS = 1_000_000
ROWS_FILE = "split_rows.npz"


def split_rows_entries(train_index: Any, test_index: Any, folder: Path) -> dict[str, Any]:
    """What split.json holds of the rows: the lists themselves, or the name of the file written beside it."""
    train, test = np.asarray(train_index), np.asarray(test_index)
    if len(train) + len(test) <= LISTED_ROWS:
        return {"train_index": train.tolist(), "test_index": test.tolist()}
    np.savez_compressed(folder / ROWS_FILE, train_index=train, test_index=test)
    return {"rows_file": ROWS_FILE}


def read_split(path: Path) -> dict[str, Any]:
    """split.json with its rows at hand (train_index, test_index), wherever they were written."""
    split = json.loads(Path(path).read_text())
    if "rows_file" in split and "test_index" not in split:
        with np.load(Path(path).parent / split["rows_file"]) as rows:
            split["train_index"], split["test_index"] = rows["train_index"].tolist(), rows["test_index"].tolist()
    return split
