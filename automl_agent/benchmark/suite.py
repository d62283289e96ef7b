"""The suite as data (`<name>_suite.json`) and where each dataset's file comes from."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from ..data.library_datasets import graph_folder, image_folder, sklearn_table
from ..errors import UserFacingError

SUITES_DIR = Path(__file__).resolve().parent
DATASETS_DIR = Path(__file__).resolve().parents[1] / "datasets"
Setting = Literal["free", "aware"]


class BenchCase(BaseModel):
    task: str
    dataset: str
    data: str | None  # a bundled file or folder, 'sklearn:NAME', 'images:NAME', 'graph:NAME'; None: no loader yet
    target: str | None = None
    metric: str
    quick: bool = False
    free: str
    aware: str

    def instruction(self, setting: Setting) -> str:
        return self.free if setting == "free" else self.aware


class Suite(BaseModel):
    name: str
    description: str
    cases: list[BenchCase]


def load_suite(name: str) -> Suite:
    path = SUITES_DIR / f"{name}_suite.json"
    if not path.exists():
        known = sorted(p.stem.removesuffix("_suite") for p in SUITES_DIR.glob("*_suite.json"))
        raise UserFacingError(f"Unknown benchmark suite {name!r}.", f"Known suites: {', '.join(known)}.")
    return Suite.model_validate_json(path.read_text())


def materialise(case: BenchCase, cache_dir: Path) -> Path | None:
    """The case's data as a file the CLI can read; None when its task type has no loader yet."""
    if case.data is None:
        return None
    if case.data.startswith("sklearn:"):
        return sklearn_table(case.data.split(":", 1)[1], case.target, cache_dir)
    if case.data.startswith("images:"):
        return image_folder(case.data.split(":", 1)[1], cache_dir)
    if case.data.startswith("graph:"):
        return graph_folder(case.data.split(":", 1)[1], cache_dir)
    return DATASETS_DIR / case.data
