"""The run's canonical copy of the table: what the one reader made of the user's file, after the sanity rules,
written once as Parquet in the run folder with the reading decisions beside it. Every later stage (the training
script, the held-out evidence, the registry signature, the bento, the demo, the benchmark's baselines) reads this
file and never the original again, so they all see the same rows and the same typed values."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..agents.contracts import TableReading
from .sanity import SanityReport

FOLDER = "data"
READING_FILE = "reading.json"


def write(frame: pd.DataFrame, reading: TableReading | None, checks: SanityReport, run_dir: Path, stem: str) -> Path:
    """run_dir/data/STEM.parquet (row labels kept: split.json and the evidence refer to them) and reading.json."""
    folder = run_dir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.parquet"
    tmp = path.with_suffix(".parquet.part")
    _parquet_safe(frame).to_parquet(tmp, index=True)
    tmp.replace(path)
    (folder / READING_FILE).write_text(json.dumps({
        "reading": reading.model_dump() if reading else None, "checks": checks.model_dump(),
        "rows": len(frame), "columns": [str(c) for c in frame.columns],
        "dtypes": {str(c): str(t) for c, t in frame.dtypes.items()}}, indent=2))
    return path


def _parquet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns of mixed Python objects (numbers and words from a JSON file) as text, which Parquet can hold."""
    fixed = {}
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object:
            kinds = {type(v) for v in values.dropna().head(1000)}
            if len(kinds) > 1 or any(k in {list, dict} for k in kinds):
                fixed[column] = values.map(lambda v: v if v is None or (isinstance(v, float) and pd.isna(v)) else str(v))
    return frame.assign(**fixed) if fixed else frame
