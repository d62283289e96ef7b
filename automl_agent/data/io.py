"""Reading the user's table, with errors that say what is wrong and what to do."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..agents.contracts import TableReading
from ..config import current_settings
from ..errors import UserFacingError
from . import reader

TABLE_SUFFIXES = {".csv", ".tsv", ".txt", ".tab", ".dat", ".psv", ".parquet", ".pq", ".json", ".jsonl", ".ndjson",
                  ".xlsx", ".xlsm", ".gz", ".bz2", ".xz", ".zip", ""}


def read_table(path: str | Path, min_rows: int = 20) -> pd.DataFrame:
    return read_table_with_notes(path, min_rows)[0]


def read_table_with_notes(path: str | Path, min_rows: int = 20) -> tuple[pd.DataFrame, TableReading]:
    """The user's table read once, by the one reader (data.reader), and checked to be trainable in shape."""
    path = Path(path)
    if not path.exists():
        from .catalog import known_names, nearest_name

        near = nearest_name(path.name) if not path.suffix else None
        raise UserFacingError(f"Data file not found: {path}" + (f" (did you mean --data {near}?)" if near else ""),
                              "Check the path given to --data (relative paths start from the current directory), or "
                              f"give the name of a dataset available offline: {known_names()}.")
    if path.is_dir():
        raise UserFacingError(f"{path} is a folder, and not a graph this tool can read.",
                              "Point --data at a CSV or Parquet table; for a graph, at a folder of Planetoid files "
                              "(ind.NAME.x, ...) or a folder with nodes.csv and edges.csv.")
    reader.check_regular_file(path)
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise UserFacingError(f"Unsupported data file type {suffix!r} for {path.name}.",
                              "Give a CSV (.csv, .tsv), Parquet (.parquet), JSON lines (.jsonl) or Excel (.xlsx) file.")
    if path.stat().st_size == 0:
        raise UserFacingError(f"{path.name} is empty.", "Give a table with a header row and at least a few dozen data rows.")
    _check_fits_in_memory(path, suffix)
    try:
        frame, reading = reader.read(path)
    except pd.errors.EmptyDataError:
        raise UserFacingError(f"{path.name} is empty.", "Give a table with a header row and at least a few dozen data rows.")
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, ValueError) as exc:
        raise UserFacingError(f"Could not read {path.name}: {str(exc).splitlines()[0]}",
                              "Make sure the file is a CSV with a header row (any delimiter or encoding), JSON lines, "
                              "Excel or Parquet.")
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise UserFacingError(f"{path.name} has no data rows ({frame.shape[0]} rows, {frame.shape[1]} columns).",
                              "Give a table with a header row and at least a few dozen data rows.")
    if frame.shape[0] < min_rows:
        raise UserFacingError(f"{path.name} has only {frame.shape[0]} row{'s' if frame.shape[0] != 1 else ''}, too "
                              "few to train and test a model.",
                              f"Give at least {min_rows} rows (a few hundred or more for a useful model).")
    repeated = sorted({c for c in frame.columns if list(frame.columns).count(c) > 1}
                      | (_repeated_in_header(path, reading) if reading.format == "csv" and not reading.compression else set()))
    if repeated:
        raise UserFacingError(f"{path.name} has columns with the same name: {', '.join(map(repr, repeated))}.",
                              "Rename them so that every column has its own name, then run again.")
    return frame, reading


def _repeated_in_header(path: Path, reading: TableReading) -> set[str]:
    """pandas renames a repeated header (income, income.1); the file's own header says what the user wrote."""
    import csv

    if not reading.header:
        return set()
    with open(path, newline="", encoding=reading.encoding or "utf-8", errors="replace") as handle:
        lines = [handle.readline() for _ in range(reading.skipped_lines + 1)]
    try:
        names = [n.strip().lstrip("\ufeff") for n in next(csv.reader([lines[-1]], delimiter=reading.delimiter or ","))]
    except (csv.Error, StopIteration):
        return set()
    return {n for n in names if n and names.count(n) > 1}


def available_memory_mb() -> float:
    """What this process may fill: AUTOML_AGENT_MEMORY_MB when set (a worker's share, or a test), else the free
    memory the system reports."""
    configured = current_settings().memory_mb
    if configured is not None:
        return configured
    import psutil

    return psutil.virtual_memory().available / 2**20


def _check_fits_in_memory(path: Path, suffix: str) -> None:
    on_disk_mb = path.stat().st_size / 2**20
    in_memory_mb = on_disk_mb * (8 if suffix in {".parquet", ".pq"} else 3)  # parquet is compressed; CSV is text
    available = available_memory_mb()
    if in_memory_mb > available / 2:
        raise UserFacingError(
            f"{path.name} is {on_disk_mb:,.1f} MB on disk, about {in_memory_mb:,.0f} MB once read, and this machine "
            f"has {available:,.0f} MB free: training on it would run out of memory.",
            "Sample it first (for example the first million rows: head -n 1000001 big.csv > sample.csv), or train "
            "on a work pool whose machines have more memory (--training-pool).")


def read_as_the_scripts_do(path: Path) -> pd.DataFrame:
    """The table as the training skeletons read it, so that split.json's row labels point at the same rows (for
    the report's held-out evidence and the benchmark's baselines): the run's snapshot (Parquet) as it is, any other
    file through the one reader."""
    path = Path(path)
    if path.suffix.lower() in {".parquet", ".pq"}:
        return pd.read_parquet(path)
    return reader.read(path)[0]
