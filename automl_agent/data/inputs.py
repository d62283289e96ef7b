"""What `--data` points at, read and profiled: a table (CSV or Parquet) or a graph (see data.graph)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..agents.contracts import DataProfile
from ..errors import UserFacingError
from .io import read_table
from .profile import profile_table


def read_input(path: str | Path, shown_path: str = "") -> tuple[pd.DataFrame, DataProfile]:
    """The rows the agents reason about (a graph's node table) and their measured profile."""
    from . import graph

    shown_path = shown_path or str(path)
    if graph.is_graph_input(path):
        try:
            loaded = graph.load_graph(path)
        except ImportError as exc:
            raise UserFacingError(f"{path} is a graph, and reading graphs needs PyTorch Geometric ({exc.name} is missing).",
                                  "Install the graph extra: pip install 'automl-agent[graph]'.") from None
        return loaded.node_table(), graph.profile_graph(loaded, shown_path)
    frame = read_table(path)
    return frame, profile_table(frame, shown_path)
