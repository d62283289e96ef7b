"""Where the mapped plans run: threads in the flow's process (default), or Dask when AUTOML_AGENT_TASK_RUNNER is
`dask` (a local cluster of worker processes) or `dask:ADDRESS` (a running cluster). The setting is read when a flow
run starts, on the machine that runs it, not when the flow's module is imported."""

from __future__ import annotations

import logging
import os
from typing import Any

from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from ..config import current_settings
from ..errors import UserFacingError


def make_task_runner() -> TaskRunner:
    """The task runner the settings ask for (built, not started)."""
    configured = current_settings().task_runner
    setting = "threads" if configured is None else configured  # set but empty: an error, as ever
    if setting == "threads":
        return ThreadPoolTaskRunner(max_workers=4)
    if setting == "dask" or setting.startswith("dask:"):
        from prefect_dask import DaskTaskRunner

        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # the cluster's chatter is not the user's news
        logging.getLogger("distributed").setLevel(logging.WARNING)

        address = setting.partition(":")[2]
        if address:
            return DaskTaskRunner(address=address)
        return DaskTaskRunner(cluster_kwargs={"n_workers": 2, "threads_per_worker": 1, "processes": True,
                                             "dashboard_address": None})
    raise UserFacingError(f"Unknown AUTOML_AGENT_TASK_RUNNER {setting!r}.",
                          "Use 'threads' (default), 'dask' (a local Dask cluster) or 'dask:tcp://HOST:PORT'.")


class ConfiguredTaskRunner(TaskRunner):
    """A flow's task runner that becomes the configured one when the flow run starts: the deployment's worker and
    the CLI's process each read their own AUTOML_AGENT_TASK_RUNNER."""

    def __init__(self) -> None:
        super().__init__()
        self.inner: TaskRunner | None = None

    def duplicate(self) -> "ConfiguredTaskRunner":
        return type(self)()

    def __enter__(self) -> "ConfiguredTaskRunner":
        self.inner = make_task_runner()
        self.inner.__enter__()
        self._started = True
        return self

    def __exit__(self, *exc_info: Any) -> None:
        try:
            if self.inner is not None:
                self.inner.__exit__(*exc_info)
        finally:
            self.inner, self._started = None, False

    def _started_runner(self) -> TaskRunner:
        if self.inner is None:
            raise RuntimeError("The task runner must be started before submitting work.")
        return self.inner

    def submit(self, task, parameters, wait_for=None, dependencies=None):  # type: ignore[override]
        return self._started_runner().submit(task, parameters, wait_for, dependencies)

    def map(self, task, parameters, wait_for=None):  # type: ignore[override]
        return self._started_runner().map(task, parameters, wait_for)
