"""Reading the user's table, with errors that say what is wrong and what to do."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import UserFacingError

TABLE_SUFFIXES = {".csv", ".tsv", ".txt", ".parquet", ".pq"}


def read_table(path: str | Path, min_rows: int = 20) -> pd.DataFrame:
    path = Path(path)
    if not path.exists():
        raise UserFacingError(f"Data file not found: {path}", "Check the path given to --data (relative paths start from the current directory).")
    if path.is_dir():
        raise UserFacingError(f"{path} is a folder, and not a graph this tool can read.",
                              "Point --data at a CSV or Parquet table; for a graph, at a folder of Planetoid files "
                              "(ind.NAME.x, ...) or a folder with nodes.csv and edges.csv.")
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise UserFacingError(f"Unsupported data file type {suffix!r} for {path.name}.",
                              "Give a CSV (.csv, .tsv) or Parquet (.parquet) file.")
    try:
        if suffix in {".parquet", ".pq"}:
            frame = pd.read_parquet(path)
        else:
            frame = pd.read_csv(path, sep=None if suffix in {".tsv", ".txt"} else ",", engine="python" if suffix in {".tsv", ".txt"} else "c")
    except pd.errors.EmptyDataError:
        raise UserFacingError(f"{path.name} is empty.", "Give a table with a header row and at least a few dozen data rows.")
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, ValueError) as exc:
        raise UserFacingError(f"Could not read {path.name}: {str(exc).splitlines()[0]}",
                              "Make sure the file is a valid UTF-8 CSV with a header row, or a Parquet file.")
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise UserFacingError(f"{path.name} has no data rows ({frame.shape[0]} rows, {frame.shape[1]} columns).",
                              "Give a table with a header row and at least a few dozen data rows.")
    if frame.shape[0] < min_rows:
        raise UserFacingError(f"{path.name} has only {frame.shape[0]} rows, too few to train and test a model.",
                              f"Give at least {min_rows} rows (a few hundred or more for a useful model).")
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame
