"""What `--data` points at, read and profiled: a table (CSV or Parquet) or a graph (see data.graph)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..agents.contracts import DataProfile
from ..errors import UserFacingError
from .io import read_table_with_notes
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
    frame, reading = read_table_with_notes(path)
    return frame, profile_table(frame, shown_path).model_copy(update={"reading": reading})


def is_url(data: str) -> bool:
    scheme = data.split("://", 1)[0] if "://" in data else ""
    return bool(scheme) and scheme != "file"


def localize(data: str, run_dir: Path) -> str:
    """A local path for `--data`: a URL (http, https, s3, gs, ... through fsspec) is fetched once into the run's
    folder, so every stage and every worker reads the same snapshot; a local path comes back absolute."""
    if not is_url(data):
        return str(Path(data.removeprefix("file://")).expanduser().resolve())
    import fsspec

    name = data.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0] or "data.csv"
    target = run_dir / "inputs" / name
    if target.exists():
        return str(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with fsspec.open(data, "rb") as source:
            tmp = target.with_suffix(target.suffix + ".part")
            with open(tmp, "wb") as out:
                while chunk := source.read(1 << 20):
                    out.write(chunk)
        tmp.replace(target)
    except ImportError as exc:
        raise UserFacingError(f"Reading {data} needs the fsspec driver for its scheme ({exc.name} is missing).",
                              "Install it (for s3: pip install s3fs), or download the file and pass its path.") from None
    except (OSError, ValueError) as exc:
        raise UserFacingError(f"Could not fetch the data from {data}: {exc}",
                              "Check the URL and that this machine (or the worker) can reach it, or pass a local path.") from None
    return str(target)
