"""Reading the user's table, with errors that say what is wrong and what to do."""

from __future__ import annotations

import os
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
    _check_fits_in_memory(path, suffix)
    if suffix not in {".parquet", ".pq"}:
        _check_is_text(path)
    try:
        if suffix in {".parquet", ".pq"}:
            frame = pd.read_parquet(path)
        else:
            frame = _read_delimited(path, suffix)
    except pd.errors.EmptyDataError:
        raise UserFacingError(f"{path.name} is empty.", "Give a table with a header row and at least a few dozen data rows.")
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, ValueError) as exc:
        raise UserFacingError(f"Could not read {path.name}: {str(exc).splitlines()[0]}",
                              "Make sure the file is a valid UTF-8 CSV with a header row, or a Parquet file.")
    if frame.shape[1] == 0 or frame.shape[0] == 0:
        raise UserFacingError(f"{path.name} has no data rows ({frame.shape[0]} rows, {frame.shape[1]} columns).",
                              "Give a table with a header row and at least a few dozen data rows.")
    if frame.shape[0] < min_rows:
        raise UserFacingError(f"{path.name} has only {frame.shape[0]} row{'s' if frame.shape[0] != 1 else ''}, too "
                              "few to train and test a model.",
                              f"Give at least {min_rows} rows (a few hundred or more for a useful model).")
    frame.columns = [str(c).strip() for c in frame.columns]
    repeated = sorted({c for c in frame.columns if list(frame.columns).count(c) > 1} | _repeated_in_header(path, suffix))
    if repeated:
        raise UserFacingError(f"{path.name} has columns with the same name: {', '.join(map(repr, repeated))}.",
                              "Rename them so that every column has its own name, then run again.")
    return frame


def _read_delimited(path: Path, suffix: str) -> pd.DataFrame:
    """A CSV as most tools write it; failing that, a semicolon- or tab-separated file (the delimiter sniffed) and
    Windows/Latin-1 text, which spreadsheets in many countries save."""
    with open(path, "rb") as handle:
        if handle.read(2) in (b"\xff\xfe", b"\xfe\xff"):
            return pd.read_csv(path, sep=None, engine="python", encoding="utf-16")
    for encoding in ("utf-8", "cp1252"):
        try:
            if suffix == ".csv":
                frame = pd.read_csv(path, encoding=encoding)
                if frame.shape[1] > 1 or not any(d in str(frame.columns[0]) for d in ";\t|"):
                    return frame
            return pd.read_csv(path, sep=None, engine="python", encoding=encoding)
        except UnicodeDecodeError:
            if encoding == "cp1252":
                raise
    raise AssertionError("unreachable")


def _repeated_in_header(path: Path, suffix: str) -> set[str]:
    """pandas renames a repeated header (income, income.1); the file's own header says what the user wrote."""
    if suffix not in {".csv", ".tsv", ".txt"}:
        return set()
    import csv

    with open(path, newline="", encoding="utf-8", errors="replace") as handle:
        sample = handle.readline()
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
        names = [n.strip() for n in next(csv.reader([sample], dialect))]
    except (csv.Error, StopIteration):
        return set()
    return {n for n in names if n and names.count(n) > 1}


_SIGNATURES = {b"\x89PNG": "a PNG image", b"\xff\xd8\xff": "a JPEG image", b"GIF8": "a GIF image",
               b"%PDF": "a PDF document", b"PK\x03\x04": "a ZIP archive (an Excel or Word file is one)",
               b"\x1f\x8b": "a gzip archive", b"PAR1": "a Parquet file", b"\xd0\xcf\x11\xe0": "an old Excel/Word file",
               b"SQLite format 3": "an SQLite database"}


def _check_is_text(path: Path) -> None:
    head = path.read_bytes()[:4096] if path.stat().st_size <= 4096 else open(path, "rb").read(4096)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return  # UTF-16 text, as spreadsheets save "Unicode text"
    kind = next((what for magic, what in _SIGNATURES.items() if head.startswith(magic)), None)
    if kind is None and b"\x00" in head:
        kind = "binary data, not text"
    if kind:
        raise UserFacingError(f"{path.name} is not a table: it holds {kind}.",
                              "Export the data as CSV (in a spreadsheet: Save As > CSV) or Parquet, and pass that file.")


def available_memory_mb() -> float:
    """What this process may fill: AUTOML_AGENT_MEMORY_MB when set (a worker's share, or a test), else the free
    memory the system reports."""
    configured = os.environ.get("AUTOML_AGENT_MEMORY_MB", "").strip()
    if configured:
        return float(configured)
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
    the report's held-out evidence and the benchmark's baselines)."""
    suffix = path.suffix.lower()
    if suffix in {".parquet", ".pq"}:
        frame = pd.read_parquet(path)
    elif suffix in {".tsv", ".txt"}:
        frame = pd.read_csv(path, sep=None, engine="python")
    else:
        frame = pd.read_csv(path)
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame
