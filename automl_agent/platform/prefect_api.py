"""Talking to a Prefect server: a client pointed at its API, and the work pools the runs are dispatched to."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator


@contextmanager
def prefect_client(api_url: str | None = None) -> Iterator[Any]:
    from prefect import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    if api_url:
        with temporary_settings({PREFECT_API_URL: api_url}), get_client(sync_client=True) as client:
            yield client
    else:
        with get_client(sync_client=True) as client:
            yield client


def ensure_pool(client, name: str) -> None:
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists

    try:
        client.create_work_pool(WorkPoolCreate(name=name, type="process"))
    except ObjectAlreadyExists:  # a team's own pool (Kubernetes, Docker...) is left as it is
        pass
