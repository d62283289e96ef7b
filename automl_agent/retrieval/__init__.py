"""Retrieval-augmented planning: the bundled knowledge base (ranked with BM25) always, and the remote sources that
are configured and reachable (arXiv, Kaggle, the Hugging Face Hub, web search, OpenML), in parallel under one time
budget, each with a timeout, retries, an on-disk cache and a failure that is recorded, never fatal."""

from __future__ import annotations

import time
import threading
from pathlib import Path

from ..agents import knowledge_base as kb
from ..agents.contracts import Knowledge, KnowledgeItem, SourceReport
from ..errors import UserFacingError
from .brief import make_brief
from .cache import RetrievalCache
from .http import SourceError
from .query import DataShape, RetrievalQuery, query_for
from .sources import REMOTE, BundledSource, Source
from .sources.openml_source import family_priors

DEFAULT_BUDGET_S = 20.0
PER_REQUEST_TIMEOUT_S = 10.0
ITEMS_PER_SOURCE = 5
OFF = {"none", "off", "kb", "bundled", "offline"}

__all__ = ["DataShape", "RetrievalQuery", "query_for", "retrieve", "parse_selection", "REMOTE"]


def parse_selection(text: str | None) -> list[str] | None:
    """`--retrieval`: None for auto (what is configured and reachable), [] for the bundled knowledge only, or the
    named sources."""
    text = (text or "auto").strip().lower()
    if text in ("auto", ""):
        return None
    if text in OFF:
        return []
    names = [n.strip() for n in text.replace(" ", ",").split(",") if n.strip()]
    unknown = [n for n in names if n not in REMOTE and n not in OFF]
    if unknown:
        raise UserFacingError(f"Unknown retrieval source {', '.join(map(repr, unknown))}.",
                              f"Use a comma-separated list of {', '.join(REMOTE)}, or 'auto' (default), or 'none'.")
    return [n for n in dict.fromkeys(names) if n in REMOTE]


def _chosen(selection: list[str] | None, cache: RetrievalCache) -> tuple[list[Source], list[SourceReport]]:
    sources, skipped = [], []
    for name, cls in REMOTE.items():
        source = cls()
        if selection is not None and name not in selection:
            continue
        reason = source.unusable()
        if reason is None and selection is None:  # auto: only what the user set up, and not found dead just now
            if not source.configured_by_user():
                continue
            reason = cache.recently_unreachable(name, source.endpoint)
        if reason is not None:
            skipped.append(SourceReport(source=name, error=reason))
        else:
            sources.append(source)
    return sources, skipped


def _run_one(source: Source, query: RetrievalQuery, cache: RetrievalCache, deadline: float,
             timeout_s: float) -> tuple[list[KnowledgeItem], SourceReport]:
    started = time.monotonic()
    key = query.key()
    stored = cache.get(source.name, source.endpoint, key)
    if stored is not None:
        items = [KnowledgeItem(**i) for i in stored]
        return items, SourceReport(source=source.name, query=key, items=len(items), cached=True,
                                   seconds=round(time.monotonic() - started, 3))
    error = None
    items: list[KnowledgeItem] = []
    try:
        items = source.search(query, timeout_s, deadline, ITEMS_PER_SOURCE)
        cache.put(source.name, source.endpoint, key, [i.model_dump() for i in items])
        cache.clear_unreachable(source.name, source.endpoint)
    except SourceError as exc:
        error = str(exc)
        if error.startswith(("unreachable", "no answer")):
            cache.mark_unreachable(source.name, source.endpoint, error)
    except Exception as exc:  # a client library's own surprise: malformed answers mostly; never fatal
        error = f"malformed or unexpected answer ({type(exc).__name__}: {str(exc)[:160]})"
    return items, SourceReport(source=source.name, query=key, items=len(items),
                               seconds=round(time.monotonic() - started, 3), error=error)


def retrieve(query: RetrievalQuery, selection: list[str] | None, cache_dir: Path,
             budget_s: float = DEFAULT_BUDGET_S) -> Knowledge:
    """Knowledge for one run: never raises for a source's failure, never waits past `budget_s`."""
    cache = RetrievalCache(cache_dir)
    started = time.monotonic()
    deadline = started + budget_s
    bundled_items = BundledSource().search(query, budget_s, deadline, 6)
    reports = [SourceReport(source="bundled", query=query.key(), items=len(bundled_items),
                            seconds=round(time.monotonic() - started, 3))]
    sources, skipped = _chosen(selection, cache)
    reports += skipped
    items = list(bundled_items)
    timeout_s = min(PER_REQUEST_TIMEOUT_S, budget_s)
    if sources:
        # daemon threads: a source still waiting on the network when the budget ends must not hold the run, nor
        # the process at exit (a ThreadPoolExecutor's threads are joined at exit)
        results: dict[str, tuple[list[KnowledgeItem], SourceReport]] = {}
        threads = [threading.Thread(target=lambda s=s: results.__setitem__(s.name, _run_one(s, query, cache, deadline,
                                                                                            timeout_s)),
                                    name=f"retrieval-{s.name}", daemon=True) for s in sources]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()) + 0.5)
        for source in sources:
            found, report = results.get(source.name) or ([], SourceReport(
                source=source.name, query=query.key(), seconds=round(budget_s, 3),
                error=f"no answer within the {budget_s:g} s retrieval budget"))
            items += found
            reports.append(report)
    priors = family_priors(items, kb.model_keys(query.task))
    failures = [f"{r.source}: {r.error}" for r in reports if r.error]
    order = ["bundled", *REMOTE]
    reports.sort(key=lambda r: order.index(r.source))
    return Knowledge(items=items, failures=failures, sources=reports, family_priors=priors,
                     brief=make_brief(items, " ".join([query.text, query.metric]), priors))
