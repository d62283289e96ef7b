"""A retrieval source: where it lives (configurable, so a team can use a mirror and tests a local server), whether
it is usable here, and a search that returns knowledge items or raises SourceError."""

from __future__ import annotations

import re

from ...agents.contracts import KnowledgeItem
from ..query import RetrievalQuery

SUMMARY_CHARS = 600


def first_endpoint(default: str, *configured: str) -> str:
    """The first configured endpoint that is not blank (without a trailing /), else the default."""
    for value in configured:
        if value.strip():
            return value.strip().rstrip("/")
    return default


def clean(text: str | None, limit: int = SUMMARY_CHARS) -> str:
    """Retrieved text, one line, control characters and markup removed, cut at `limit` characters."""
    text = re.sub(r"<[^>]{0,200}>", " ", text or "")
    text = re.sub(r"[\x00-\x1f\x7f]", " ", text)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


class Source:
    name = "source"
    kind = "note"

    @property
    def endpoint(self) -> str:
        raise NotImplementedError

    def unusable(self) -> str | None:
        """Why this source cannot be used here (no package, no credentials, no endpoint), or None."""
        return None

    def configured_by_user(self) -> bool:
        """True when the user set this source up (a key, an endpoint); public sources count as configured."""
        return True

    def search(self, query: RetrievalQuery, timeout_s: float, deadline: float, limit: int) -> list[KnowledgeItem]:
        raise NotImplementedError
