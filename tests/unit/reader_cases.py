"""What the reader tests share: the spec INIT makes of one instruction over a table (the offline brain), and a
synthetic table saved where a test can read it."""

from __future__ import annotations

import pandas as pd

from automl_agent.agents.brains.base import RecordingBrain, Transcript
from automl_agent.agents.brains.factory import make_brain
from automl_agent.benchmark.understanding import read_table, understand


def read(data: str, text: str) -> dict:
    frame, profile = read_table(data)
    return understand(RecordingBrain(make_brain("offline"), Transcript()), text, profile, None, frame)


def saved(tmp_path_factory, name: str, frame: pd.DataFrame) -> str:
    path = tmp_path_factory.mktemp(name) / f"{name}.csv"
    frame.to_csv(path, index=False)
    return str(path)
