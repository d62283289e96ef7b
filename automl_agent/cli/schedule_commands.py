"""`automl-agent schedule add|list|remove`: retraining on a Prefect schedule of the automl-agent/run deployment,
with the run's parameters carried by the schedule."""

from __future__ import annotations

import argparse
import json
import os

from .command_groups import action_group
from ..errors import UserFacingError

EXIT_OK = 0


def add_parser(sub, common: list[argparse.ArgumentParser]) -> None:
    action = action_group(
        sub, "schedule", common,
        help="retrain on a schedule, always or only when the served model drifted (Prefect schedules on "
             "automl-agent/run and automl-agent-watch/drift, with the run's parameters)",
        description="Schedules live on the Prefect server PREFECT_API_URL names (after `automl-agent stack up` and "
                    "`automl-agent deploy`); its scheduler creates the runs and the pool's workers train them. They "
                    "show in the Prefect UI on the deployment's page, where they can be paused or edited too.")
    add = action.add_parser("add", help="a new schedule: INSTRUCTION on --data, --every INTERVAL or --cron EXPR")
    add.add_argument("instruction")
    add.add_argument("--data", required=True, help="the table, as the workers read it: an absolute path or a URL")
    add.add_argument("--every", help="interval: 30m, 6h, 1d, 1w (at least 1m)")
    add.add_argument("--cron", help="cron expression, e.g. '0 3 * * 1' (Mondays 03:00)")
    add.add_argument("--timezone", default="UTC", help="IANA timezone of the schedule (default UTC)")
    add.add_argument("--name", help="the schedule's name (default: the model name, else retrain-<data>)")
    add.add_argument("--model-name", help="registered model the runs add versions to (recommended: the champion "
                                          "gate compares each new version with its @champion)")
    add.add_argument("--target")
    add.add_argument("--budget", type=float)
    add.add_argument("--training-pool")
    add.add_argument("--when-drifted", action="store_true",
                     help="retrain only when the served model drifted: each scheduled run first compares the traffic "
                          "of --model-name's @champion with its training rows (as `automl-agent monitor`), and "
                          "retrains only on drift (deployment automl-agent-watch/drift)")
    add.add_argument("--log-dir", help="with --when-drifted: the services' traffic logs as the workers see them "
                                       "(default: the worker's AUTOML_AGENT_MONITOR_DIR, else its workspace)")
    add.add_argument("--drift-share", type=float, help="with --when-drifted: see `automl-agent monitor --help`")
    add.add_argument("--min-rows", type=int, help="with --when-drifted: see `automl-agent monitor --help`")
    add.add_argument("--since", type=float, metavar="HOURS", help="with --when-drifted: only the last HOURS of traffic")
    listing = action.add_parser("list", help="the schedules of automl-agent/run with their parameters")
    listing.add_argument("--json", action="store_true")
    remove = action.add_parser("remove", help="delete a schedule (its future runs go with it)")
    remove.add_argument("name")


def _api_url() -> str:
    api_url = os.environ.get("PREFECT_API_URL")
    if not api_url:
        raise UserFacingError("PREFECT_API_URL is not set: schedules live on a Prefect server whose workers run them.",
                              "Start one with `automl-agent stack up` and export what it prints (then `automl-agent "
                              "deploy`), or point PREFECT_API_URL at your team's server.")
    return api_url


def cmd_schedule(args: argparse.Namespace) -> int:
    import httpx

    from ..deployments import schedules

    api_url = _api_url()
    try:
        if args.schedule_action == "add":
            from pathlib import Path

            watch_only = {"--log-dir": args.log_dir, "--drift-share": args.drift_share, "--min-rows": args.min_rows,
                          "--since": args.since}
            if not args.when_drifted and any(v is not None for v in watch_only.values()):
                given = ", ".join(k for k, v in watch_only.items() if v is not None)
                raise UserFacingError(f"{given} only mean something with --when-drifted.",
                                      "Add --when-drifted (retrain only on drift), or leave them out.")
            if args.log_dir and not Path(args.log_dir).is_absolute():
                raise UserFacingError(f"--log-dir {args.log_dir} is a relative path; the worker starts in its own "
                                      "folder.", f"Give an absolute path, e.g. --log-dir {Path(args.log_dir).resolve()}.")
            if args.when_drifted:
                if not args.model_name:
                    raise UserFacingError("--when-drifted watches a registered model: --model-name is needed.",
                                          "Give the name its runs register, e.g. --model-name churn.")
                parameters = schedules.run_parameters(
                    args.instruction, args.data, model=args.model_name, target=args.target, budget=args.budget,
                    training_pool=args.training_pool, log_dir=args.log_dir, drift_share=args.drift_share,
                    min_rows=args.min_rows, since_hours=args.since)
            else:
                parameters = schedules.run_parameters(args.instruction, args.data, model_name=args.model_name,
                                                      target=args.target, budget=args.budget,
                                                      training_pool=args.training_pool)
            deployment = schedules.WATCH_DEPLOYMENT if args.when_drifted else schedules.DEPLOYMENT
            name = args.name or args.model_name or f"retrain-{Path(args.data.split('://')[-1]).stem}"
            row = schedules.add(api_url, name=name, parameters=parameters, every=args.every, cron=args.cron,
                                timezone=args.timezone, deployment_name=deployment)
            print(f"schedule {row.name}: {row.when}, runs {deployment} with {json.dumps(row.parameters)}")
            return EXIT_OK
        if args.schedule_action == "remove":
            row = schedules.remove(api_url, args.name)
            print(f"removed schedule {row.name} ({row.when})")
            return EXIT_OK
        rows = schedules.listing(api_url)
    except (httpx.HTTPError, OSError) as exc:
        raise UserFacingError(f"The Prefect server at {api_url} did not answer: {exc}",
                              "Check PREFECT_API_URL (`automl-agent stack status` shows the local stack).",
                              status="failed") from None
    if args.json:
        print(json.dumps([r.model_dump() for r in rows], indent=2))
    elif not rows:
        print("no schedules on automl-agent/run or automl-agent-watch/drift (add one: automl-agent schedule add "
              "\"...\" --data PATH --every 1d)")
    for r in rows if not args.json else []:
        kind = "on drift" if r.deployment == schedules.WATCH_DEPLOYMENT else "always"
        print(f"{r.name:<24} {'active' if r.active else 'paused':<7} {kind:<8} {r.when:<36} {json.dumps(r.parameters)}")
    return EXIT_OK
