"""Kaggle: notebooks (kernels) and datasets on the task, through Kaggle's API (the `kaggle` package's request and
answer types, kagglesdk), sent with httpx so the endpoint, timeout and retries are ours."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

from ...agents.contracts import KnowledgeItem
from ..http import SourceError, request_json
from ..query import RetrievalQuery
from ...config import current_settings
from .base import Source, clean, first_endpoint

DEFAULT_URL = "https://api.kaggle.com"


def kaggle_credentials() -> tuple[str, Any] | None:
    """('basic', (user, key)) from KAGGLE_USERNAME/KAGGLE_KEY or kaggle.json, ('bearer', token) from
    KAGGLE_API_TOKEN; None when there are none."""
    token = os.environ.get("KAGGLE_API_TOKEN", "").strip()
    if token:
        return "bearer", token
    user, key = os.environ.get("KAGGLE_USERNAME", "").strip(), os.environ.get("KAGGLE_KEY", "").strip()
    if user and key:
        return "basic", (user, key)
    folder = Path(os.environ.get("KAGGLE_CONFIG_DIR") or Path.home() / ".kaggle")
    try:
        stored = json.loads((folder / "kaggle.json").read_text())
        return "basic", (stored["username"], stored["key"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def auth_headers() -> tuple[dict[str, str], Any]:
    kind, value = kaggle_credentials() or ("", None)
    if kind == "bearer":
        return {"Authorization": f"Bearer {value}"}, None
    return {}, value


def kaggle_endpoint() -> str:
    return first_endpoint(DEFAULT_URL, os.environ.get("KAGGLE_API_ENDPOINT", ""), current_settings().kaggle_url)


class KaggleSource(Source):
    name = "kaggle"
    kind = "notebook"

    @property
    def endpoint(self) -> str:
        return kaggle_endpoint()

    def unusable(self) -> str | None:
        if importlib.util.find_spec("kagglesdk") is None:
            return "the kaggle package is not installed (pip install 'automl-agent[retrieval]')"
        if kaggle_credentials() is None:
            return "no credentials (set KAGGLE_USERNAME and KAGGLE_KEY, or put kaggle.json in ~/.kaggle)"
        return None

    def configured_by_user(self) -> bool:
        return kaggle_credentials() is not None

    def _call(self, service: str, method: str, body: dict, timeout_s: float, deadline: float) -> Any:
        headers, auth = auth_headers()
        return request_json("POST", f"{self.endpoint}/v1/{service}/{method}", json_body=body, headers=headers,
                            auth=auth, timeout_s=timeout_s, deadline=deadline)

    def search(self, query: RetrievalQuery, timeout_s: float, deadline: float, limit: int) -> list[KnowledgeItem]:
        from kagglesdk.datasets.types.dataset_api_service import ApiListDatasetsRequest, ApiListDatasetsResponse
        from kagglesdk.kernels.types.kernels_api_service import ApiListKernelsRequest, ApiListKernelsResponse

        text = " ".join(w for w in (query.subject, query.domain) if w) or query.task_words
        kernels_request = ApiListKernelsRequest()
        kernels_request.search, kernels_request.page_size = text, limit
        kernels_request.language = "python"
        answer = self._call("kernels.KernelsApiService", "ListKernels", kernels_request.to_dict(), timeout_s, deadline)
        kernels = ApiListKernelsResponse.from_dict(_checked(answer, "kernels")).kernels
        datasets_request = ApiListDatasetsRequest()
        datasets_request.search, datasets_request.page_size = text, limit
        answer = self._call("datasets.DatasetApiService", "ListDatasets", datasets_request.to_dict(), timeout_s, deadline)
        datasets = ApiListDatasetsResponse.from_dict(_checked(answer, "datasets")).datasets
        web = "https://www.kaggle.com"
        items = [KnowledgeItem(source=self.name, kind="notebook", title=clean(k.title, 200),
                               summary=clean(f"Kaggle notebook by {k.author} on {', '.join(k.dataset_data_sources[:2]) or text}"
                                             f"; {k.total_votes} votes."),
                               url=f"{web}/code/{k.ref}", facts={"votes": str(k.total_votes)})
                 for k in kernels[:limit]]
        items += [KnowledgeItem(source=self.name, kind="dataset", title=clean(d.title or d.ref, 200),
                                summary=clean(d.subtitle or d.description or d.title or ""),
                                url=d.url or f"{web}/datasets/{d.ref}",
                                facts={"ref": d.ref, "licence": d.license_name or "unknown",
                                       "size_bytes": str(d.total_bytes or ""), "downloads": str(d.download_count)})
                  for d in datasets[:limit]]
        return items


def _checked(answer: Any, key: str) -> dict:
    if not isinstance(answer, dict) or not isinstance(answer.get(key, []), list):
        raise SourceError(f"malformed answer from Kaggle (no '{key}' list)")
    return answer
