"""Web search through a provider with an HTTP API: a self-hosted SearXNG (JSON output) first, else Tavily or Brave
with their key in an environment variable."""

from __future__ import annotations

import os

from ...agents.contracts import KnowledgeItem
from ..http import records, request_json
from ..query import RetrievalQuery
from ...config import current_settings
from .base import Source, clean, first_endpoint

TAVILY_URL = "https://api.tavily.com/search"
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"


def _provider() -> tuple[str, str] | None:
    settings = current_settings()
    searxng = settings.searxng_url.strip()
    if searxng:
        return "searxng", searxng.rstrip("/")
    if os.environ.get("TAVILY_API_KEY", "").strip():
        return "tavily", first_endpoint(TAVILY_URL, settings.tavily_url)
    if os.environ.get("BRAVE_API_KEY", "").strip():
        return "brave", first_endpoint(BRAVE_URL, settings.brave_url)
    return None


class WebSource(Source):
    name = "web"
    kind = "web page"

    @property
    def endpoint(self) -> str:
        provider = _provider()
        return provider[1] if provider else ""

    def unusable(self) -> str | None:
        if _provider() is None:
            return "no search provider (set AUTOML_AGENT_SEARXNG_URL, TAVILY_API_KEY or BRAVE_API_KEY)"
        return None

    def configured_by_user(self) -> bool:
        return _provider() is not None

    def search(self, query: RetrievalQuery, timeout_s: float, deadline: float, limit: int) -> list[KnowledgeItem]:
        provider, url = _provider() or ("", "")
        text = f"best model for {query.text}" + (f" {query.metric}" if query.metric else "")
        common = {"timeout_s": timeout_s, "deadline": deadline}
        if provider == "searxng":
            answer = request_json("GET", f"{url}/search", params={"q": text, "format": "json"}, **common)
            rows = [(r.get("title"), r.get("content"), r.get("url")) for r in records(answer, "results")]
        elif provider == "tavily":
            answer = request_json("POST", url, json_body={"query": text, "max_results": limit},
                                  headers={"Authorization": f"Bearer {os.environ['TAVILY_API_KEY'].strip()}"}, **common)
            rows = [(r.get("title"), r.get("content"), r.get("url")) for r in records(answer, "results")]
        else:
            answer = request_json("GET", url, params={"q": text, "count": limit},
                                  headers={"X-Subscription-Token": os.environ["BRAVE_API_KEY"].strip()}, **common)
            rows = [(r.get("title"), r.get("description"), r.get("url")) for r in records(answer, "web", "results")]
        return [KnowledgeItem(source=self.name, kind=self.kind, title=clean(title, 200), summary=clean(content),
                              url=link, facts={"provider": provider})
                for title, content, link in rows[:limit] if title and link]
