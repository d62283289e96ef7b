"""`automl-agent models list|promote|rollback`: the registry's versions and who holds @champion, moved by hand
with a recorded reason."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from .command_groups import action_group
from ..settings import configure_environment, default_tracking_uri

EXIT_OK = 0


def add_parser(sub, common: list[argparse.ArgumentParser]) -> None:
    """`common`: the options every command takes (--workdir, --tracking-uri), accepted after the action too."""
    action = action_group(
        sub, "models", common,
        help="registered models: list versions and aliases, promote a version to @champion, roll back",
        description="A run registers a new version as @champion only when it scores at least as well as the "
                    "current champion on the same held-out rows and takes the same inputs; otherwise @challenger "
                    "(or @candidate when a requirement was missed). Here a person moves @champion by hand; every "
                    "move is recorded with its reason on the version and in the model's history (MLflow tags).")
    listing = action.add_parser("list", help="versions of NAME with aliases, gate scores and reasons; the champion "
                                             "history (all registered names when NAME is left out)")
    listing.add_argument("name", nargs="?")
    listing.add_argument("--json", action="store_true")
    promote = action.add_parser("promote", help="give VERSION the @champion alias (a reason is required)")
    promote.add_argument("name")
    promote.add_argument("version")
    promote.add_argument("--reason", required=True, help="why: recorded with the move")
    promote.add_argument("--allow-schema-change", action="store_true",
                         help="promote a version whose input columns differ from the champion's (callers must change)")
    rollback = action.add_parser("rollback", help="give @champion back to VERSION, or to the champion before the "
                                                  "current one")
    rollback.add_argument("name")
    rollback.add_argument("version", nargs="?")
    rollback.add_argument("--reason", default="", help="why: recorded with the move")


def _tracking_uri(args: argparse.Namespace) -> str:
    workdir = Path(args.workdir).resolve()
    configure_environment(workdir)
    return os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(workdir)


def cmd_models(args: argparse.Namespace) -> int:
    from ..serving import aliases

    tracking_uri = _tracking_uri(args)
    if args.models_action == "promote":
        moved = aliases.promote(tracking_uri, args.name, args.version, args.reason, args.allow_schema_change)
        print(f"{args.name}@champion: v{moved.previous or '-'} -> v{moved.version} ({moved.reason})")
        return EXIT_OK
    if args.models_action == "rollback":
        moved = aliases.rollback(tracking_uri, args.name, args.version, args.reason)
        print(f"{args.name}@champion: v{moved.previous or '-'} -> v{moved.version} ({moved.reason})")
        return EXIT_OK
    if not args.name:
        names = aliases.registered_names(tracking_uri)
        print("\n".join(names) if names else f"no registered models at {tracking_uri}")
        return EXIT_OK
    rows = aliases.list_versions(tracking_uri, args.name)
    moves = aliases.history_of(tracking_uri, args.name)
    if args.json:
        print(json.dumps({"versions": [r.model_dump() for r in rows], "champion_history": [m.model_dump() for m in moves]},
                         indent=2))
        return EXIT_OK
    print(f"{args.name} at {tracking_uri}")
    print(f"{'version':>7}  {'aliases':<22} {'created (UTC)':<16}  {'score':<18} reason")
    for r in rows:
        print(f"{r.version:>7}  {','.join('@' + a for a in r.aliases) or '-':<22} {r.created:<16}  {r.score or '-':<18} "
              f"{r.reason or '-'}" + (f" [then {r.last_move}]" if r.last_move else ""))
    if moves:
        print("\n@champion history (oldest first):")
        for m in moves:
            print(f"  {m.at}  v{m.previous or '-'} -> v{m.version}  by {m.by}: {m.reason}")
    return EXIT_OK
