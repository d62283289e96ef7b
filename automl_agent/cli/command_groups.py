"""A command with actions (`automl-agent models list|promote|rollback`, `schedule add|list|remove`, `llm check`)."""

from __future__ import annotations

import argparse
import functools


def action_group(sub, name: str, common: list[argparse.ArgumentParser], *, help: str, description: str):
    """The subparsers of the actions of command `name` (chosen one lands in args.<name>_action); each action takes
    the options every command takes (`common`: --workdir, --tracking-uri) after it too."""
    command = sub.add_parser(name, help=help, description=description)
    actions = command.add_subparsers(dest=f"{name}_action", metavar="ACTION", required=True)
    actions.add_parser = functools.partial(actions.add_parser, parents=common)
    return actions
