"""The user's own automl-agent folder (not a workspace's): the one Prefect server of this user, the local stack.

`AUTOML_AGENT_HOME` moves it (tests point it at a temporary folder); the default is ~/.automl-agent, beside
Prefect's own ~/.prefect."""

from __future__ import annotations

import os
from pathlib import Path


def user_home() -> Path:
    root = Path(os.environ.get("AUTOML_AGENT_HOME") or Path.home() / ".automl-agent").expanduser().resolve()
    root.mkdir(parents=True, exist_ok=True)
    return root
