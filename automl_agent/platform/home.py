"""The user's own automl-agent folder (not a workspace's): the one Prefect server of this user, the local stack.

`AUTOML_AGENT_HOME` moves it (tests point it at a temporary folder); the default is ~/.automl-agent, beside
Prefect's own ~/.prefect."""

from __future__ import annotations

from pathlib import Path

from ..config import current_settings


def user_home() -> Path:
    root = Path(current_settings().home or Path.home() / ".automl-agent").expanduser().resolve()
    root.mkdir(parents=True, exist_ok=True)
    return root
