"""What every stage task shares: persisted, input-keyed results so a rerun resumes, and no retry on user errors."""

from __future__ import annotations

from typing import Any

from prefect.cache_policies import INPUTS, TASK_SOURCE

from ..errors import UserFacingError

STAGE_CACHE = TASK_SOURCE + INPUTS


def retry_unless_user_error(task, task_run, state) -> bool:
    try:
        state.result()
    except UserFacingError:
        return False
    except Exception:
        return True
    return False


def call_stage(task, *args, **kwargs) -> tuple[Any, bool]:
    """Call a stage task; returns (its result, whether it came from the persisted cache, i.e. a resumed stage)."""
    state = task(*args, return_state=True, **kwargs)
    return state.result(), state.name == "Cached"


def worker_id() -> str:
    """host:pid of the process running a stage (recorded on the plan's MLflow run: where the mapped plans ran)."""
    import os
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"
