"""The bundled knowledge base, ranked for the run's question with BM25: what the offline brain always has."""

from __future__ import annotations

from ...agents import knowledge_base as kb
from ...agents.contracts import KnowledgeItem
from ..query import RetrievalQuery
from ..ranking import top
from .base import Source


class BundledSource(Source):
    name = "bundled"
    kind = "note"

    @property
    def endpoint(self) -> str:
        return "package:automl_agent/knowledge"

    def search(self, query: RetrievalQuery, timeout_s: float, deadline: float, limit: int) -> list[KnowledgeItem]:
        items = [KnowledgeItem(source=self.name, kind="model", title=f"{key} ({info['family']})", summary=info["notes"],
                               facts={"model_key": key})
                 for key, info in kb.models(query.task).items()]
        items += [KnowledgeItem(source=self.name, kind="plan", title=t["title"], summary=t["rationale"],
                                facts={"models": ", ".join(t["models"])})
                  for t in kb.plan_templates(query.task)]
        words = " ".join([query.text, query.metric, *query.constraints])
        return [items[i] for i in top([f"{i.title} {i.summary}" for i in items], words, limit)]
