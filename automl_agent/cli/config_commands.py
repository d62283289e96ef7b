"""`automl-agent config`: every AUTOML_AGENT_* setting, its current value, where that came from (the environment or
the default) and what it does; secrets masked. `--json` for machines."""

from __future__ import annotations

import argparse
import json

from ..config import current_settings, render_rows, settings_rows

EXIT_OK = 0


def add_parser(sub) -> None:
    config = sub.add_parser(
        "config", help="list the AUTOML_AGENT_* settings: current value, where it came from, what it does",
        description="Every AUTOML_AGENT_* environment variable automl-agent reads, with its current value and whether "
                    "that came from the environment or is the default. Keys and passwords are masked. A value of the "
                    "wrong type is shown and marked INVALID (the exit status is then 2). docs/howto/settings.md has "
                    "the same list as a table.")
    config.add_argument("--json", action="store_true", help="the settings as a JSON list (name, value, source, "
                                                            "default, type, description, secret, error)")


def cmd_config(args: argparse.Namespace) -> int:
    rows = settings_rows()
    print(json.dumps(rows, indent=2) if args.json else render_rows(rows))
    current_settings()  # an invalid value: listed above, and said here as the error every command gives
    return EXIT_OK
