"""The datasets available offline (bundled with automl-agent or shipped inside installed packages), by the names
people give them. Plain data, no imports beyond pydantic: the table reader's errors list the names too."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

CATALOG = Path(__file__).with_name("catalog.json")


class CatalogEntry(BaseModel):
    name: str
    names: list[str]
    excludes: list[str] = Field(default_factory=list)
    source: str
    target: str
    licence: str
    url: str
    about: str
    loader: str | None = None
    file: str | None = None
    folder: str | None = None


@lru_cache(maxsize=1)
def catalog() -> list[CatalogEntry]:
    return [CatalogEntry(**e) for e in json.loads(CATALOG.read_text())["datasets"]]


def known_names() -> str:
    return ", ".join(e.name for e in catalog())


def nearest_name(said: str) -> str | None:
    """The offline dataset a mistyped bare name means ('pengwins' penguins); None when none is close."""
    from rapidfuzz import fuzz, process

    names = {n.lower(): e.name for e in catalog() for n in (e.name, *e.names)}
    found = process.extractOne(said.lower(), list(names), scorer=fuzz.ratio, score_cutoff=80)
    return names[found[0]] if found else None
