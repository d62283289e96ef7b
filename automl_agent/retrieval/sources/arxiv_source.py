"""arXiv through the `arxiv` package: titles and abstracts of papers on the task and domain."""

from __future__ import annotations

import importlib.util
import time

from ...agents.contracts import KnowledgeItem
from ..http import SourceError
from ..query import RetrievalQuery
from ...config import current_settings
from .base import Source, clean, first_endpoint

DEFAULT_URL = "https://export.arxiv.org/api/query"


class ArxivSource(Source):
    name = "arxiv"
    kind = "paper"

    @property
    def endpoint(self) -> str:
        return first_endpoint(DEFAULT_URL, current_settings().arxiv_url)

    def unusable(self) -> str | None:
        if importlib.util.find_spec("arxiv") is None:
            return "the arxiv package is not installed (pip install 'automl-agent[retrieval]')"
        return None

    def search(self, query: RetrievalQuery, timeout_s: float, deadline: float, limit: int) -> list[KnowledgeItem]:
        import arxiv
        import requests

        class _Session(requests.Session):
            """arxiv's client sets no timeout and accepts any body; this one bounds each request and keeps the
            last answer so a page that is not an Atom feed is reported as malformed, not as 'no papers'."""
            last: requests.Response | None = None

            def request(self, *args, **kwargs):
                kwargs.setdefault("timeout", max(0.5, min(timeout_s, deadline - time.monotonic())))
                self.last = super().request(*args, **kwargs)
                return self.last

        client = arxiv.Client(page_size=limit, delay_seconds=0.5, num_retries=2)
        client.query_url_format = self.endpoint + "?{}"
        session = _Session()
        client._session = session  # the documented attribute arxiv.Client sends every request through
        words = " AND ".join(f'all:"{w}"' if " " in w else f"all:{w}"
                             for w in [query.task_words] + ([query.domain] if query.domain else []))
        search = arxiv.Search(query=words, max_results=limit, sort_by=arxiv.SortCriterion.Relevance)
        try:
            results = list(client.results(search))
        except arxiv.HTTPError as exc:
            raise SourceError("rate limited by arXiv (HTTP 429)" if exc.status == 429
                              else f"arXiv answered HTTP {exc.status}") from exc
        except requests.exceptions.Timeout as exc:
            raise SourceError(f"no answer from arXiv within {timeout_s:g} s") from exc
        except requests.exceptions.ConnectionError as exc:
            raise SourceError(f"unreachable ({type(exc).__name__})") from exc
        body = session.last.content[:4000] if session.last is not None else b""
        if not results and b"<feed" not in body:
            raise SourceError("malformed answer from arXiv (not an Atom feed)")
        return [KnowledgeItem(source=self.name, kind=self.kind, title=clean(r.title, 200), summary=clean(r.summary),
                              url=r.entry_id, facts={"published": r.published.date().isoformat() if r.published else "",
                                                     "categories": ", ".join(r.categories[:3])})
                for r in results[:limit]]
