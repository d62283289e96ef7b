"""PLAN's retrieval stage: the knowledge the planner reads, from the bundled knowledge base and the configured
remote sources (see automl_agent.retrieval), logged to MLflow: queries, items with their URLs, what was cached,
what failed, and the brief."""

from __future__ import annotations

from prefect import task

from .. import context
from ..agents.contracts import Knowledge, RequirementSpec
from ..context import RunRef
from ..retrieval import DataShape, parse_selection, query_for, retrieve
from .common import STAGE_CACHE


@task(name="retrieve_knowledge",
      description="Bundled notes (BM25), arXiv, Kaggle, HF, web and OpenML, searched in parallel within one time "
                  "budget.",
      cache_policy=STAGE_CACHE)
def retrieve_knowledge(run: RunRef, spec: RequirementSpec, shape: DataShape) -> Knowledge:
    ctx = context.get(run)
    query = query_for(spec, shape)
    knowledge = retrieve(query, parse_selection(ctx.options.retrieval), ctx.workspace.root / "cache" / "retrieval",
                         budget_s=ctx.options.retrieval_budget_s)
    mlflow_run = ctx.mlflow_run_id
    ctx.tracker.json(mlflow_run, knowledge.model_dump(mode="json"), "retrieval/knowledge.json")
    ctx.tracker.json(mlflow_run, {"query": query.model_dump(mode="json"), "text": query.text, "key": query.key()},
                     "retrieval/query.json")
    if knowledge.brief:
        ctx.tracker.text(mlflow_run, knowledge.brief, "retrieval/brief.md")
    values: dict[str, float | None] = {}
    for report in knowledge.sources:
        values[f"retrieval.{report.source}.items"] = report.items
        values[f"retrieval.{report.source}.seconds"] = report.seconds
        values[f"retrieval.{report.source}.cached"] = float(report.cached)
        values[f"retrieval.{report.source}.failed"] = float(report.error is not None)
    ctx.tracker.metrics(mlflow_run, values)
    return knowledge
