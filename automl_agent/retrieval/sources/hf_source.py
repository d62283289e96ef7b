"""The Hugging Face Hub through `huggingface_hub`: the most downloaded models and datasets for the task, with
their cards' key facts (licence, downloads, library). The endpoint is huggingface_hub's own HF_ENDPOINT."""

from __future__ import annotations

import os

from ...agents.contracts import KnowledgeItem
from ..http import request_json
from ..query import HF_PIPELINE, RetrievalQuery
from .base import Source, clean

DEFAULT_URL = "https://huggingface.co"


def hf_endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_URL).rstrip("/")


class HuggingFaceSource(Source):
    name = "hf"
    kind = "model"

    @property
    def endpoint(self) -> str:
        return hf_endpoint()

    def unusable(self) -> str | None:
        if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
            return "HF_HUB_OFFLINE is set"
        return None

    def search(self, query: RetrievalQuery, timeout_s: float, deadline: float, limit: int) -> list[KnowledgeItem]:
        # The Hub's list endpoints, parsed by huggingface_hub's own ModelInfo and DatasetInfo; the request is ours,
        # so the timeout, the retries and the run's deadline hold (HfApi.list_models retries for up to 30 s itself).
        from huggingface_hub import DatasetInfo, ModelInfo

        tag = HF_PIPELINE.get(query.task)
        subject = " ".join(w for w in (query.subject, query.domain) if w)
        common = {"timeout_s": timeout_s, "deadline": deadline}
        found_models = []
        if tag:
            answer = request_json("GET", f"{self.endpoint}/api/models", params={
                "pipeline_tag": tag, "sort": "downloads", "direction": "-1", "limit": limit,
                "expand[]": ["downloads", "likes", "pipeline_tag", "library_name", "cardData", "tags"]}, **common)
            found_models = [ModelInfo(**m) for m in _entries(answer)]
        params = {"sort": "downloads", "direction": "-1", "limit": limit,
                  "expand[]": ["downloads", "likes", "cardData", "description", "tags"]}
        if tag:
            params["filter"] = f"task_categories:{tag}"
        if subject:
            params["search"] = subject.split()[0]
        found_datasets = [DatasetInfo(**d) for d in _entries(request_json("GET", f"{self.endpoint}/api/datasets",
                                                                          params=params, **common))]
        items = [KnowledgeItem(source=self.name, kind="model", title=m.id,
                               summary=clean(f"{m.pipeline_tag or tag} model, library {m.library_name or 'unknown'}, "
                                             f"{m.downloads or 0} downloads, licence {licence_of(m)}"),
                               url=f"{self.endpoint}/{m.id}",
                               facts={"downloads": str(m.downloads or 0), "licence": licence_of(m),
                                      "library": m.library_name or ""})
                 for m in found_models[:limit]]
        items += [KnowledgeItem(source=self.name, kind="dataset", title=d.id,
                                summary=clean(getattr(d, "description", None) or f"dataset {d.id}"),
                                url=f"{self.endpoint}/datasets/{d.id}",
                                facts={"downloads": str(d.downloads or 0), "licence": licence_of(d)})
                  for d in found_datasets[:limit]]
        return items


def _entries(answer) -> list[dict]:
    if not isinstance(answer, list):
        raise ValueError("expected a JSON list")
    return [a for a in answer if isinstance(a, dict) and "id" in a]


def licence_of(info) -> str:
    card = getattr(info, "card_data", None) or getattr(info, "cardData", None)
    value = None
    if card is not None:
        value = card.get("license") if hasattr(card, "get") else getattr(card, "license", None)
    if value is None:
        value = next((t.split(":", 1)[1] for t in (getattr(info, "tags", None) or []) if t.startswith("license:")), None)
    return str(value or "unknown")
