"""Knowledge retrieval: the bundled knowledge base always; arXiv when enabled and reachable. Never fatal."""

from __future__ import annotations

import json
import os
from pathlib import Path

from prefect import task

from .. import context
from ..context import RunRef
from ..agents import knowledge_base as kb
from ..agents.contracts import Knowledge, KnowledgeItem, RequirementSpec
from .common import STAGE_CACHE


def bundled(spec: RequirementSpec) -> list[KnowledgeItem]:
    task_type = spec.problem.downstream_task
    items = [KnowledgeItem(source="bundled", title=f"{key} ({info['family']})", summary=info["notes"])
             for key, info in kb.models(task_type).items()]
    items += [KnowledgeItem(source="bundled", title=t["title"], summary=t["rationale"]) for t in kb.plan_templates(task_type)]
    return items


def from_arxiv(spec: RequirementSpec, cache_dir: Path, limit: int = 3) -> list[KnowledgeItem]:
    query = f"{spec.problem.downstream_task.value.replace('_', ' ')} {spec.problem.application_domain}".strip()
    cache = cache_dir / f"arxiv-{abs(hash(query))}.json"
    if cache.exists():
        return [KnowledgeItem(**item) for item in json.loads(cache.read_text())]
    import arxiv  # optional extra: pip install 'automl-agent[retrieval]'

    client = arxiv.Client(num_retries=1, delay_seconds=1)
    results = client.results(arxiv.Search(query=query, max_results=limit, sort_by=arxiv.SortCriterion.Relevance))
    items = [KnowledgeItem(source="arxiv", title=r.title, summary=r.summary[:600]) for r in results]
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps([i.model_dump() for i in items]))
    return items


@task(name="retrieve_knowledge", cache_policy=STAGE_CACHE)
def retrieve_knowledge(run: RunRef, spec: RequirementSpec) -> Knowledge:
    ctx = context.get(run)
    knowledge = Knowledge(items=bundled(spec))
    sources = [s for s in os.environ.get("AUTOML_AGENT_RETRIEVAL", "").split(",") if s]
    for source in sources:
        try:
            if source == "arxiv":
                knowledge.items += from_arxiv(spec, ctx.workspace.root / "cache")
            else:
                knowledge.failures.append(f"{source}: unknown source (known: arxiv)")
        except Exception as exc:  # a source that fails is logged and skipped, never fatal
            knowledge.failures.append(f"{source}: {type(exc).__name__}: {exc}")
    ctx.tracker.json(ctx.mlflow_run_id, knowledge.model_dump(), "knowledge.json")
    return knowledge
