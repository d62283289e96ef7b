"""What every stage task shares: persisted, input-keyed results so a rerun resumes, and no retry on user errors."""

from __future__ import annotations

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
