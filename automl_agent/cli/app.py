"""automl-agent: describe an ML task in one sentence, point at data, get a verified, registered, served model."""

from __future__ import annotations

import argparse
import functools
import json
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

from . import config_commands, llm_commands, model_commands, monitor_commands, schedule_commands
from ..config import current_settings
from ..errors import UserFacingError
from ..settings import RunOptions, check_workspace, configure_environment, default_tracking_uri

EXIT_OK, EXIT_FAILED, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2, 2

EXAMPLES = """examples:
  automl-agent run "Build a model to predict customer churn. F1 should be at least 0.55 and one prediction must take under 10 ms." --data churn.csv
  automl-agent run "Predict the price of a diamond; RMSE below 600" --data diamonds.csv --budget 90
  automl-agent run "Cluster these wines into 3 groups" --data wine.csv --target cultivar
  automl-agent runs
  automl-agent bench --suite dev --quick     # the benchmark suite, scored as the paper does, next to FLAML
  automl-agent server status                 # your Prefect UI (started by `run`, shared by all workspaces, stops when idle)
  automl-agent serve RUN_ID --port 3000      # then: curl -X POST localhost:3000/predict -H 'content-type: application/json' -d '{"records": [...]}'
  automl-agent demo RUN_ID --port 7860

team platform (the same commands point at a team's servers through PREFECT_API_URL and MLFLOW_TRACKING_URI):
  automl-agent stack up                      # Prefect server + UI, MLflow server, a worker per pool (cpu, gpu)
  automl-agent deploy                        # deployments automl-agent/run, automl-agent-bench/nightly, training
  prefect deployment run 'automl-agent/run' -p instruction="Predict churn" -p data=/abs/path/churn.csv
  automl-agent serve models:/churn-tabular_classification@champion --port 3000
  automl-agent schedule add "Predict churn" --data /abs/churn.csv --model-name churn --cron '0 3 * * 1'
  automl-agent models list churn-tabular_classification    # versions, aliases, why each holds its alias
  automl-agent models rollback churn-tabular_classification --reason "v3 misroutes VIP customers"
  automl-agent stack down
"""


def _global_options(with_defaults: bool) -> argparse.ArgumentParser:
    """Options every command takes. After the command their defaults are suppressed, so that a value given before
    the command is not overwritten by the default."""
    options = argparse.ArgumentParser(add_help=False)

    def default(value):
        return value if with_defaults else argparse.SUPPRESS

    options.add_argument("--workdir", default=default(None),  # None: AUTOML_AGENT_WORKDIR, else .automl (main)
                         help="workspace folder: runs, MLflow store, bentos (default: .automl in the current directory)")
    options.add_argument("--tracking-uri", default=default(None), metavar="URI",
                         help="MLflow tracking server or store for runs, artifacts, prompts, traces and the model "
                              "registry (default: MLFLOW_TRACKING_URI, else sqlite in the workspace)")
    return options


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="automl-agent", description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_global_options(with_defaults=True)])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # global options are accepted after the command too (`automl-agent run ... --workdir W`)
    sub.add_parser = functools.partial(sub.add_parser, parents=[_global_options(with_defaults=False)])

    run = sub.add_parser("run", help="run the whole pipeline on an instruction and a data file",
                         description="Parse the instruction, plan, train with HPO in a sandbox, verify, register, build a bento and a demo.")
    run.add_argument("instruction", help="the task in one sentence, with any constraints (metric >= x, latency < y ms, ...)")
    run.add_argument("--data",
                     help="CSV or Parquet file with a header row; for a graph, a folder of Planetoid files (ind.NAME.x, "
                          "...) or a folder with nodes.csv (id, features, label) and edges.csv (source, target). Also a "
                          "URL, openml://ID (or NAME), hf://OWNER/NAME or kaggle://OWNER/DATASET. Left out: the data "
                          "agent finds the dataset the instruction names (iris, wine, penguins, ... offline; OpenML by "
                          "name when reachable)")
    run.add_argument("--target", help="the column to predict (default: inferred from the instruction and the data)")
    run.add_argument("--budget", type=float, default=60.0, help="seconds for the training script's search and fit (default 60)")
    run.add_argument("--plans", type=int, default=3, help="number of plans executed in parallel (default 3)")
    run.add_argument("--top-k", type=int, default=3, help="candidate models per plan (default 3)")
    run.add_argument("--max-revisions", type=int, default=1, help="revision rounds when verification fails (default 1)")
    run.add_argument("--llm", default=None,
                     help="brain: 'offline' (default, no key or network), 'openai:MODEL' (uses OPENAI_BASE_URL/OPENAI_API_KEY: "
                          "OpenAI, vLLM, Ollama...), 'azure:DEPLOYMENT' (AZURE_OPENAI_ENDPOINT/AZURE_OPENAI_API_KEY), "
                          "'gguf:PATH' (a local GGUF model served in process by llama.cpp; gguf:gemma3-270m is the tiny "
                          "bundled one). `automl-agent llm check --llm SPEC` tries one first")
    run.add_argument("--llm-strict", action="store_true",
                     help="a step the LLM cannot answer validly stops the run with the reason, instead of being answered "
                          "by the offline rules (the default, which the run summary counts)")
    run.add_argument("--reasoning-effort", choices=["minimal", "low", "medium", "high"], default=None,
                     help="for reasoning models (o-series, gpt-5 family): how long they think; default: the model's own")
    run.add_argument("--llm-agent", action="append", default=[], metavar="AGENT=SPEC",
                     help="a different brain for one agent (manager, prompt, data, model, operation); repeatable, "
                          "e.g. --llm-agent manager=openai:gpt-4o-mini --llm-agent operation=openai:gpt-4o. "
                          "Also from AUTOML_AGENT_LLM_<AGENT> variables")
    run.add_argument("--max-tokens-per-run", type=int, default=None, metavar="N",
                     help="stop the run cleanly once its LLM calls used N tokens (prompt + completion)")
    run.add_argument("--code-attempts", type=int, default=2,
                     help="tries an LLM operation agent gets to write a script that runs, each shown the previous "
                          "error; then the skeleton renderer's script runs (default 2)")
    run.add_argument("--memory-mb", type=int, default=8192, help="memory cap of the training sandbox (default 8192)")
    run.add_argument("--model-name", help="registered model name (default: <data file>-<task>). A new version "
                                          "becomes @champion only if it scores at least as well as the current one on "
                                          "the same held-out rows and takes the same inputs; else @challenger")
    run.add_argument("--allow-schema-change", action="store_true",
                     help="let a version whose input columns differ from the champion's take @champion (its callers "
                          "must change too)")
    run.add_argument("--run-id", help="resume or name a run; rerunning an interrupted run id resumes from its finished stages")
    run.add_argument("--training-pool", default=None, metavar="POOL",
                     help="train the generated script as a flow run on this Prefect work pool (e.g. gpu; needs "
                          "`automl-agent deploy` on that server) instead of a local subprocess")
    run.add_argument("--prefect", default=None, metavar="MODE",
                     help="Prefect API: 'workspace' (default: a server for this workspace, started once in the background "
                          "and reused; it serves the Prefect UI), 'ephemeral' (a temporary in-process server per command, "
                          "slower), or a server URL such as http://127.0.0.1:4200/api. PREFECT_API_URL, when set, wins "
                          "over the default; so does AUTOML_AGENT_PREFECT.")
    run.add_argument("--retrieval", default=None, metavar="SOURCES",
                     help="knowledge sources for planning: 'auto' (default: the bundled knowledge base plus arXiv, the "
                          "Hugging Face Hub and OpenML, and Kaggle and web search when their keys or URL are set), "
                          "'none' (bundled only), or a list such as arxiv,kaggle,hf,web,openml. Also "
                          "AUTOML_AGENT_RETRIEVAL")
    run.add_argument("--retrieval-budget", type=float, default=20.0, metavar="SECONDS",
                     help="time for all retrieval sources together (default 20); a source that has not answered by "
                          "then is recorded as such and the run plans without it")
    run.add_argument("--dry-run", action="store_true",
                     help="stop after INIT and PLAN: show the task, target, metric, constraints and plans the agent "
                          "understood, write run.json (status 'planned'); nothing is trained, registered or served")
    run.add_argument("--json", action="store_true", help="also print run.json to stdout")
    run.add_argument("--quiet", action="store_true", help="no progress output")

    runs = sub.add_parser("runs", help="list the runs in the workspace, one line each (filters: status, task, date)")
    runs.add_argument("--status", choices=("running", "planned", "succeeded", "failed", "rejected", "interrupted"))
    runs.add_argument("--task", help="part of the task type: tabular, forecasting, text, image, node, clustering ...")
    runs.add_argument("--since", metavar="WHEN", help="runs created since a date (2026-11-01) or a span (3d, 12h)")
    runs.add_argument("--json", action="store_true", help="the matching run.json records as a JSON list")

    bench = sub.add_parser("bench", help="run a benchmark suite and score it as the paper does (SR, NPS, CS)",
                           description="Every case of the suite through the full pipeline, constraint-free and/or "
                                       "constraint-aware, next to a conventional baseline on the same split and budget "
                                       "(FLAML for tabular tasks). Writes results.json and results.md under "
                                       "<workdir>/bench/<id>/ and logs them to MLflow (experiment automl-agent-bench).")
    bench.add_argument("--suite", default="dev", help="suite name (default dev: 7 task types x 2 datasets)")
    bench.add_argument("--setting", choices=["free", "aware", "both"], default="both")
    bench.add_argument("--repeats", type=int, default=1)
    bench.add_argument("--budget", type=float, default=None, help="seconds per run (default 60; 10 with --quick)")
    bench.add_argument("--quick", action="store_true", help="one dataset per task type, small budget (what CI runs)")
    bench.add_argument("--llm", default=None, help="as for `run`")
    bench.add_argument("--plans", type=int, default=3)
    bench.add_argument("--no-baseline", action="store_true", help="skip the conventional baseline")
    bench.add_argument("--baseline", action="append", choices=["autogluon"], default=[], dest="extra_baselines",
                       help="add a baseline beside the default one: autogluon (TabularPredictor, medium_quality, the "
                            "same split and budget; tabular classification and regression; needs `make autogluon`)")
    bench.add_argument("--only", metavar="DATASET[,DATASET]", default=None,
                       help="run only these datasets of the suite (e.g. --only diamonds,ames)")
    bench.add_argument("--prefect", default=None, metavar="MODE", help="as for `run`")

    server = sub.add_parser("server", help="your Prefect server (UI and API): start, stop or show it",
                            description="`automl-agent run` starts this server on first use (one per user, shared by "
                                        "every workspace); it stops after --idle-minutes without a command using it.")
    server.add_argument("action", choices=["start", "stop", "status"])
    server.add_argument("--idle-minutes", type=float, default=None,
                        help="stop after this many idle minutes (default 60; 0 = never)")

    stack = sub.add_parser("stack", help="the team stack on this machine: Prefect server + UI, MLflow server, workers",
                           description="up: start the Prefect server (with its UI), an MLflow tracking server (model "
                                       "registry, artifacts served) and one Prefect worker per work pool, wait until "
                                       "all are healthy and print what to export. status: check each part. down: stop "
                                       "the workers, then the servers; nothing is left running.")
    stack.add_argument("action", choices=["up", "status", "down"])
    stack.add_argument("--json", action="store_true", help="status as JSON")
    stack.add_argument("--mlflow-port", type=int, default=None, help="MLflow server port (default: a free one)")
    stack.add_argument("--prefect-port", type=int, default=None, help="Prefect server port (default: a free one)")
    stack.add_argument("--db", default="sqlite", metavar="sqlite|postgres|URL",
                       help="the servers' database: sqlite (default, one user), postgres (a PostgreSQL server "
                            "started here from the machine's installation, one database for Prefect and one for "
                            "MLflow; no 'database is locked' under several runs and workers), or a team's "
                            "postgresql://USER:PASSWORD@HOST:PORT/DB for Prefect")
    stack.add_argument("--mlflow-db", default=None, metavar="URL",
                       help="a team's postgresql://USER:PASSWORD@HOST:PORT/DB for MLflow's tracking store (a database "
                            "other than Prefect's; default: the --db postgres server's, else SQLite)")

    deploy = sub.add_parser("deploy", help="register the deployments on the Prefect server PREFECT_API_URL names",
                            description="Creates the work pools (cpu, gpu) if missing, the GPU slot limit "
                                        "(automl-agent-gpu-slots) and the deployments automl-agent/run, "
                                        "automl-agent-bench/nightly (scheduled, paused) and automl-agent-train/<pool>.")
    deploy.add_argument("--run-pool", default="cpu", help="pool whose workers run the automl flow (default cpu)")
    deploy.add_argument("--training-pools", default="cpu,gpu", help="pools that get a training deployment (default cpu,gpu)")
    deploy.add_argument("--gpu-slots", type=int, default=1, help="trainings the gpu pool runs at once (default 1)")

    show = sub.add_parser("show", help="a run in readable form: spec, plans, verdicts, metrics, constraints, links")
    show.add_argument("run_id")
    show.add_argument("--json", action="store_true", help="the run.json record itself")

    serve = sub.add_parser("serve", help="serve a model over HTTP with BentoML (POST /predict): a run's, or a "
                                         "registered version (models:/NAME@ALIAS or models:/NAME/VERSION)")
    serve.add_argument("run_id", metavar="RUN_ID|MODEL_URI",
                       help="a run id of this workspace, or models:/NAME@champion: the version the alias points at now, "
                            "from the tracking server's registry (a bento is built for it once, then reused)")
    serve.add_argument("--port", type=int, default=3000)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--workers", type=int, default=None,
                       help="server processes, each with the model loaded (default: the number of cores, at most 4)")

    model_commands.add_parser(sub, [_global_options(with_defaults=False)])
    schedule_commands.add_parser(sub, [_global_options(with_defaults=False)])
    llm_commands.add_parser(sub, [_global_options(with_defaults=False)])
    monitor_commands.add_parser(sub, [_global_options(with_defaults=False)])
    config_commands.add_parser(sub)

    demo = sub.add_parser("demo", help="open the Gradio demo of a run's model")
    demo.add_argument("run_id")
    demo.add_argument("--port", type=int, default=7860)
    demo.add_argument("--host", default="127.0.0.1")
    return parser


def _error(exc: UserFacingError | str) -> None:
    print(f"error: {exc}", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    from ..agents.brains.factory import AGENTS, parse_agent_specs, validate_spec

    try:
        validate_spec(args.llm)
        from_env = current_settings().agent_llms()  # AUTOML_AGENT_LLM_<AGENT>, upper case as ever
        env_routes = [f"{a}={from_env[a.upper()]}" for a in AGENTS if from_env.get(a.upper())]
        by_agent = parse_agent_specs(env_routes + list(args.llm_agent))
    except UserFacingError as exc:
        _error(exc)
        return EXIT_USAGE
    try:
        options = RunOptions(instruction=args.instruction, data_path=args.data, workdir=args.workdir, target=args.target,
                             budget_s=args.budget, n_plans=args.plans, top_k=args.top_k, max_revisions=args.max_revisions,
                             llm=args.llm, llm_by_agent=by_agent, max_tokens_per_run=args.max_tokens_per_run,
                             llm_strict=args.llm_strict, reasoning_effort=args.reasoning_effort,
                             code_attempts=args.code_attempts,
                             memory_mb=args.memory_mb, model_name=args.model_name, run_id=args.run_id,
                             allow_schema_change=args.allow_schema_change,
                             tracking_uri=args.tracking_uri, training_pool=args.training_pool, dry_run=args.dry_run,
                             retrieval_budget_s=args.retrieval_budget,
                             **({"retrieval": args.retrieval} if args.retrieval else {}))
    except UserFacingError as exc:
        _error(exc)
        return EXIT_USAGE
    except ValueError as exc:
        errors = getattr(exc, "errors", lambda: [])()
        detail = "; ".join(f"{'.'.join(map(str, e['loc'])).replace('_', '-')}: {e['msg'].removeprefix('Value error, ')}"
                           for e in errors) or str(exc)
        _error(f"invalid options: {detail}")
        return EXIT_USAGE
    try:
        check_workspace(options.workdir_path)
    except UserFacingError as exc:
        _error(exc)
        return EXIT_USAGE
    configure_environment(options.workdir_path)
    try:
        prefect_server = _connect_prefect(args.prefect, options.workdir_path)
    except UserFacingError as exc:
        _error(exc)
        return EXIT_USAGE
    from ..console import Reporter
    from ..flows.automl import automl_flow
    from ..flows.task_runners import make_task_runner
    from ..workspace import new_run_id

    if options.training_pool and _prefect_mode(args.prefect) == "ephemeral":
        _error("--training-pool needs a Prefect server whose workers poll that pool; ephemeral mode has none.\n"
               "  -> Start one with `automl-agent stack up` (then `automl-agent deploy`), or leave --training-pool out.")
        return EXIT_USAGE

    try:
        _check_run_id_is_free_or_resumable(options)
    except UserFacingError as exc:
        _error(exc)
        return EXIT_REJECTED
    options = options.model_copy(update={"run_id": options.run_id or new_run_id()})
    reporter = Reporter(quiet=args.quiet)
    reporter.say(f"automl-agent run {options.run_id} (workspace {options.workdir_path})")
    if prefect_server is not None:
        _wait_for_prefect(prefect_server, reporter)
    try:
        make_task_runner()  # a wrong AUTOML_AGENT_TASK_RUNNER is said here; the flow builds its own at the start
        flow_to_run = automl_flow
    except UserFacingError as exc:
        _error(exc)
        return EXIT_USAGE
    from .. import context

    context.attach_reporter(options.run_id, reporter)
    try:
        held = _hold_run_id(options)
    except UserFacingError as exc:
        _error(exc)
        return EXIT_REJECTED
    # Ctrl-C and SIGTERM alike: the training ends at once, the record says so
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    import logging

    # the flow run's lines go to the Prefect UI (at INFO, see configure_environment); the terminal has its own
    logging.getLogger("prefect.flow_runs").propagate = False
    try:
        record = flow_to_run(options=options)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        held.release()
    _summary(record, reporter, options.workdir_path)
    if args.json:
        print(record.model_dump_json(indent=2))
    return {"succeeded": EXIT_OK, "planned": EXIT_OK, "rejected": EXIT_REJECTED}.get(record.status, EXIT_FAILED)


def _interrupt(signum, _frame) -> None:
    from ..sandbox import stop_running

    stop_running()  # the training runs in a session of its own: the signal does not reach it, and the task runner
    raise KeyboardInterrupt(signal.Signals(signum).name)  # would wait for it before the interrupt gets through


def _prefect_mode(requested: str | None) -> str:
    if requested:
        return requested
    configured = current_settings().prefect
    if configured:
        return configured
    return os.environ.get("PREFECT_API_URL") or "workspace"


def _connect_prefect(requested: str | None, workdir: Path):
    """Point Prefect at its API before prefect is imported. Starts the workspace server without waiting for it, so
    that its start-up overlaps this process's imports; returns its info then, else None."""
    mode = _prefect_mode(requested)
    if mode == "ephemeral":
        os.environ.pop("PREFECT_API_URL", None)
        return None
    if mode.startswith(("http://", "https://")):
        os.environ["PREFECT_API_URL"] = mode
        return None
    if mode != "workspace":
        raise UserFacingError(f"Unknown --prefect value {mode!r}.",
                              "Use 'workspace', 'ephemeral' or a Prefect API URL like http://127.0.0.1:4200/api.")
    from ..platform import prefect_server

    info, _ = prefect_server.start()
    os.environ["PREFECT_API_URL"] = info.api_url
    return info


def _wait_for_prefect(info, reporter) -> None:
    from ..platform import prefect_server

    if not prefect_server.is_healthy(info):
        reporter.say(f"starting your Prefect server at {info.url} (once, shared by every workspace) ...")
        prefect_server.wait_healthy(info)


def _summary(record, reporter, workdir: Path) -> None:
    reporter.say("")
    reporter.always(f"run {record.run_id}: {record.status.upper()}")
    if record.message:
        reporter.always(f"  {record.message}")
    if record.status == "planned":
        _planned_summary(record, reporter)
        reporter.say(f"  {record.timings.get('total', 0):.1f} s; run.json in {workdir / 'runs' / record.run_id}")
        return
    rows: list[tuple[str, str]] = []
    if record.task_type:
        rows.append(("task", f"{record.task_type}, target {record.target!r}" if record.target else record.task_type))
    if record.metrics:
        rows.append(("model", f"{record.best_model}: " + ", ".join(f"{k}={v:.4f}" for k, v in record.metrics.items())))
    for c in record.constraints:
        measured = "not measured" if c.measured is None else f"{c.measured:.4g}"
        rows.append((f"{c.name} {c.op} {c.target:g}", f"{'met' if c.satisfied else 'NOT met'} (measured {measured})"))
    if record.registered_model:
        rm = record.registered_model
        rows.append(("registered", f"models:/{rm.name}/{rm.version} as @{rm.alias}"))
        rows.append(("bento", str(record.bento_tag)))
        rows.append(("serve", f"automl-agent --workdir {workdir} serve {record.run_id}"))
        rows.append(("demo", f"automl-agent --workdir {workdir} demo {record.run_id}"))
        if (Path(workdir) / "runs" / record.run_id / "monitoring" / "reference.parquet").is_file():
            rows.append(("monitor", f"automl-agent --workdir {workdir} monitor {record.run_id}  (after serving: drift of "
                                    "the traffic against the training rows)"))
    if record.report_path:
        rows.append(("report", str(Path(record.report_path).with_suffix(".html"))))
    if record.training_pool:
        rows.append(("trained on", f"work pool {record.training_pool!r} (details in runs/{record.run_id}/training/)"))
    if record.prefect_ui_url:
        rows.append(("Prefect UI", record.prefect_ui_url))
    if record.llm.backend != "offline":
        rows.append(("brain", record.llm.brain_line()))
        rows += [("LLM server", note) for note in record.llm.server_adjustments]
    rows.append(("run", f"success score {record.success_score}; {record.timings.get('total', 0):.1f} s; "
                        f"run.json in {workdir / 'runs' / record.run_id}"))
    reporter.table("", rows)
    for warning in record.warnings:
        reporter.always(f"  WARNING: {warning}")


def _planned_summary(record, reporter) -> None:
    """What a dry run understood, for the user to check before spending a budget (printed even with --quiet)."""
    from ..workspace import describe_inputs

    say = reporter.always
    say(f"  task:        {record.task_type}")
    say(f"  target:      {record.target!r}" + (f" ({record.target_reason})" if record.target_reason else ""))
    say(f"  metric:      {record.metric}")
    say("  constraints: " + ("; ".join(f"{c.name} {c.op} {c.target:g}" for c in record.constraints) or "none"))
    say(f"  inputs:      {describe_inputs(record.inputs, record.left_out)}")
    if record.audit is not None:
        if record.audit.language != "en" or record.audit.rewrites:
            say(f"  read as:     {record.audit.read_as}")
        for m in record.audit.mentions:
            say(f"  said:        {m.words!r} -> {m.placed_as or 'not placed'}")
    for p in record.plans:
        say(f"  plan {p.plan_id}:      {p.title} [{', '.join(p.model_families)}]")
    say("  to train: the same command without --dry-run")


def cmd_runs(args: argparse.Namespace) -> int:
    from .run_views import parse_since, runs_table, select
    from ..workspace import Workspace

    workdir = Path(args.workdir).resolve()
    records = select(Workspace(workdir).list(), status=args.status, task=args.task, since=parse_since(args.since))
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in records], indent=2))
        return EXIT_OK
    if not records:
        print(f"no runs in {workdir}" + (" match" if args.status or args.task or args.since else ""))
        return EXIT_OK
    print(runs_table(records))
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from ..agents.brains.factory import validate_spec
    from ..benchmark.suite import load_suite
    from ..console import Reporter
    from ..flows.bench import BenchOptions, bench_flow, selected_cases, to_markdown

    validate_spec(args.llm)
    import importlib.util

    if not args.no_baseline and importlib.util.find_spec("flaml") is None:
        raise UserFacingError("The benchmark's conventional baseline (FLAML) is not installed here.",
                              "Install the bench extra: pip install 'automl-agent[bench]' (`make setup` does), or "
                              "pass --no-baseline.")
    if "autogluon" in args.extra_baselines:
        from ..benchmark.autogluon_baseline import autogluon_python

        autogluon_python()  # before hours of benchmarking, not after
    workdir = Path(args.workdir).resolve()
    try:
        options = BenchOptions(suite=args.suite, settings=["free", "aware"] if args.setting == "both" else [args.setting],
                               repeats=args.repeats, budget_s=args.budget or (10.0 if args.quick else 60.0),
                               quick=args.quick, workdir=str(workdir), llm=args.llm, n_plans=args.plans,
                               baseline=not args.no_baseline, extra_baselines=args.extra_baselines,
                               only=[d.strip() for d in args.only.split(",") if d.strip()] if args.only else [])
    except ValueError as exc:
        _error(f"invalid options: {exc}")
        return EXIT_USAGE
    selected_cases(load_suite(options.suite), options)  # unknown suite or dataset names: said before any server starts
    configure_environment(workdir)
    prefect_server = _connect_prefect(args.prefect, workdir)
    reporter = Reporter()
    if prefect_server is not None:
        _wait_for_prefect(prefect_server, reporter)
    report = bench_flow(options=options, reporter=reporter)
    print(to_markdown(report))
    reporter.say(f"results: {report.json_path} and {report.markdown_path}")
    return EXIT_OK


def cmd_server(args: argparse.Namespace) -> int:
    from ..platform import prefect_server

    if args.action == "stop":
        print("stopped" if prefect_server.stop() else "no Prefect server of yours is running")
        return EXIT_OK
    if args.action == "start":
        idle = prefect_server.IDLE_MINUTES_DEFAULT if args.idle_minutes is None else args.idle_minutes
        info, started = prefect_server.start(idle_minutes=idle)
        prefect_server.wait_healthy(info)
        print(f"Prefect server {'started' if started else 'already running'}: UI {info.url}  API {info.api_url}")
        return EXIT_OK
    info = prefect_server.read_info()
    if info is None:
        print("no Prefect server of yours is running (`automl-agent run` or `automl-agent server start` starts it)")
        return EXIT_FAILED
    state = "healthy" if prefect_server.is_healthy(info) else "not answering"
    print(f"Prefect server {state}: UI {info.url}  API {info.api_url}  pid {info.pid}  idle stop {info.idle_minutes:g} min")
    return EXIT_OK if state == "healthy" else EXIT_FAILED


def cmd_stack(args: argparse.Namespace) -> int:
    import json
    import time

    from ..platform import stack

    if args.action == "down":
        stopped = stack.down()
        print(f"stopped: {', '.join(stopped)}" if stopped else "no stack was running")
        return EXIT_OK
    if args.action == "status":
        report = stack.status()
        if args.json:
            print(json.dumps(report, indent=2))
        elif not report["components"]:
            print(report["message"])
        else:
            for row in report["components"]:
                where = row.get("url") or (f"pool {row['pool']}" if row.get("pool") else "the Prefect and MLflow servers' database")
                state = "healthy" if row["healthy"] else ("running, not healthy" if row["alive"] else "NOT running")
                print(f"{row['name']:<16} {state:<22} {where}  (pid {row['pid']}, log {row['log']})")
            for key, value in report["exports"].items():
                print(f"export {key}={value}")
        return EXIT_OK if report.get("healthy") else EXIT_FAILED
    started = time.perf_counter()
    print("starting the stack (Prefect server, MLflow server, workers for pools cpu and gpu) ...", file=sys.stderr)
    info = stack.up(mlflow_port=args.mlflow_port, prefect_port=args.prefect_port, db=args.db,
                    mlflow_db=args.mlflow_db)
    print(f"stack healthy after {time.perf_counter() - started:.1f} s")
    database = next((c for c in info.components if c.name == "postgres"), None)
    here = f"PostgreSQL (pid {database.pid}, log {database.log})" if database else None
    print("  Prefect DB   " + (here or ("your PostgreSQL" if args.db != "sqlite"
                                         else "SQLite (one user; --db postgres for a team)")))
    print("  MLflow DB    " + ("your PostgreSQL" if args.mlflow_db else here or "SQLite (one user; --db postgres "
                                                                               "or --mlflow-db URL for a team)"))
    print(f"  Prefect UI   {info.prefect_ui_url}")
    print(f"  MLflow UI    {info.mlflow_url}")
    print(f"  workers      {', '.join(c.pool for c in info.components if c.pool)} (logs in {stack.stack_dir()})")
    for note in info.notes:
        print(f"  note         {note}")
    print("To use the stack, export these (then `automl-agent deploy`):")
    for key, value in info.exports().items():
        print(f"export {key}={value}")
    return EXIT_OK


def cmd_deploy(args: argparse.Namespace) -> int:
    import httpx

    from ..deployments.register import deploy

    api_url = os.environ.get("PREFECT_API_URL")
    if not api_url:
        raise UserFacingError("PREFECT_API_URL is not set: deployments need a Prefect server that workers poll.",
                              "Start one with `automl-agent stack up` and export what it prints, or point "
                              "PREFECT_API_URL at your team's server.")
    pools = tuple(p.strip() for p in args.training_pools.split(",") if p.strip())
    try:
        rows = deploy(api_url, run_pool=args.run_pool, training_pools=pools, gpu_slots=args.gpu_slots)
    except (httpx.HTTPError, OSError) as exc:
        raise UserFacingError(f"The Prefect server at {api_url} did not answer: {exc}",
                              "Check PREFECT_API_URL (`automl-agent stack status` shows the local stack).",
                              status="failed") from None
    for row in rows:
        extra = f"  schedule {row['schedule']} (paused)" if row["schedule"] else ""
        print(f"{row['deployment']:<32} pool {row['pool']:<5} {row['entrypoint']}{extra}")
    ui = api_url.rstrip("/").removesuffix("/api")
    print(f"run one: prefect deployment run 'automl-agent/run' -p instruction=\"...\" -p data=/path/or/url.csv "
          f"(or the Run button at {ui}/deployments)")
    return EXIT_OK


def _delivered(args: argparse.Namespace, field: str):
    from ..workspace import Workspace

    record = Workspace(Path(args.workdir).resolve()).load(args.run_id)
    if not getattr(record, field):
        raise UserFacingError(f"Run {args.run_id} has no delivered model ({record.status}: {record.message or 'no model'}).",
                              "Serve or demo a run whose status shows a registered model (see `automl-agent runs`).")
    return record


def check_port(host: str, port: int) -> None:
    """A port that is out of range or taken is said before anything starts, not as a server's traceback."""
    import socket

    if not 1 <= port <= 65535:
        raise UserFacingError(f"--port {port} is not a port: ports go from 1 to 65535.", "Pick one such as --port 3000.")
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        try:
            probe.bind((host, port))
        except PermissionError:
            raise UserFacingError(f"Port {port} on {host} needs administrator rights (ports below 1024 do).",
                                  "Pick a port above 1023, e.g. --port 3000.") from None
        except OSError as exc:
            raise UserFacingError(f"Port {port} on {host} is not free ({exc.strerror}): another server is using it.",
                                  "Stop that server, or pick another port with --port.") from None


def cmd_serve(args: argparse.Namespace) -> int:
    check_port(args.host, args.port)
    workdir = Path(args.workdir).resolve()
    configure_environment(workdir)
    if args.run_id.startswith("models:/"):
        from ..serving.registry import bento_for_registered

        tracking_uri = os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(workdir)
        served = bento_for_registered(args.run_id, tracking_uri, workdir)
        print(f"{args.run_id} is version {served.version} of {served.name}; bento {served.bento_tag} "
              f"({'built now' if served.built else 'reused'})", file=sys.stderr)
        bento_tag = served.bento_tag
    else:
        bento_tag = _delivered(args, "bento_tag").bento_tag
    print(f"serving bento {bento_tag} on http://{args.host}:{args.port} (POST /predict, /schema); Ctrl-C stops it",
          file=sys.stderr)
    if args.workers is not None:
        if args.workers < 1:
            raise UserFacingError(f"--workers must be at least 1, got {args.workers}.", "Leave it out for the default.")
        os.environ["AUTOML_AGENT_SERVE_WORKERS"] = str(args.workers)
    # the served records' log, which `automl-agent monitor` reads (AUTOML_AGENT_MONITOR_SAMPLE=0: none kept)
    os.environ.setdefault("AUTOML_AGENT_MONITOR_DIR", str(workdir / "monitoring"))
    if current_settings().api_key.get_secret_value():
        print("an API key is required (AUTOML_AGENT_API_KEY): send 'Authorization: Bearer <key>'", file=sys.stderr)
    command = [sys.executable, "-m", "bentoml", "serve", bento_tag, "--host", args.host, "--port", str(args.port)]
    return _run_server_process(command)


def _run_server_process(command: list[str]) -> int:
    """Run a server in a child process until it ends; SIGTERM or Ctrl-C here stops it and waits for it, so that
    stopping `automl-agent serve` leaves no server or worker behind."""
    from ..sandbox import die_with_parent

    child = subprocess.Popen(command, env=os.environ.copy(), preexec_fn=lambda: die_with_parent(signal.SIGTERM))

    def stop(signum, _frame):
        child.send_signal(signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        return child.wait()
    except KeyboardInterrupt:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
        return EXIT_OK
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_demo(args: argparse.Namespace) -> int:
    check_port(args.host, args.port)
    workdir = Path(args.workdir).resolve()
    configure_environment(workdir)
    record = _delivered(args, "demo_path")
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"automl_demo_{args.run_id.replace('-', '_')}", record.demo_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    print(f"demo of {record.registered_model.name} v{record.registered_model.version} on http://{args.host}:{args.port}",
          file=sys.stderr)
    if hasattr(module, "launch"):
        module.launch(args.host, args.port)
    else:  # a demo written before launch() was part of the template
        module.build_demo().launch(server_name=args.host, server_port=args.port)
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from ..workspace import Workspace

    from .run_views import describe_run

    record = Workspace(Path(args.workdir).resolve()).load(args.run_id)
    print(record.model_dump_json(indent=2) if args.json else describe_run(record))
    return EXIT_OK


RESUMABLE = {"interrupted", "failed", "running"}


def _check_run_id_is_free_or_resumable(options) -> None:
    """--run-id names a new run, or resumes one that was stopped or failed with the same instruction; never a
    finished run (its model and record would be overwritten) or another task under the same name."""
    from ..workspace import Workspace

    if not options.run_id:
        return
    workspace = Workspace(options.workdir_path)
    if not (workspace.run_dir(options.run_id) / "run.json").exists():
        return
    earlier = workspace.load(options.run_id)
    if earlier.status not in RESUMABLE:
        raise UserFacingError(
            f"Run id {options.run_id!r} already names a finished run ({earlier.status}: {earlier.instruction[:80]!r}); "
            "a run id resumes only a run that was interrupted or failed.",
            "Leave --run-id out for a new run, or give a new id.")
    if earlier.instruction.strip() != options.instruction.strip():
        raise UserFacingError(
            f"Run id {options.run_id!r} was started with another instruction ({earlier.instruction[:80]!r}); resuming "
            "it with this one would mix two tasks in one record.",
            "Resume it with the same instruction, or give a new --run-id.")


def _hold_run_id(options):
    """One process at a time runs a run id: a second one started with the same --run-id is refused, not interleaved
    with the first in one record, one MLflow run and one folder."""
    from filelock import FileLock, Timeout

    from ..workspace import Workspace

    folder = Workspace(options.workdir_path).runs
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(folder / f".{options.run_id}.lock"), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise UserFacingError(f"Run {options.run_id!r} is already running in another automl-agent process.",
                              "Wait for it to end (`automl-agent runs`), or give a new --run-id.") from None
    return lock


def _defaults_from_settings(args: argparse.Namespace) -> None:
    """Defaults that AUTOML_AGENT_* variables give, filled in after parsing: an invalid setting is then said as an
    error (SettingsError) instead of failing the parser, and `--help` and `config` work whatever the environment."""
    settings = current_settings()
    if args.workdir is None:
        args.workdir = ".automl" if settings.workdir is None else settings.workdir
    if args.command in ("run", "bench") and args.llm is None:
        args.llm = "offline" if settings.llm is None else settings.llm
    if args.command == "run" and args.training_pool is None:
        args.training_pool = settings.training_pool or None


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    commands = {"run": cmd_run, "runs": cmd_runs, "serve": cmd_serve, "demo": cmd_demo, "show": cmd_show,
                "server": cmd_server, "bench": cmd_bench, "stack": cmd_stack, "deploy": cmd_deploy,
                "models": model_commands.cmd_models, "schedule": schedule_commands.cmd_schedule,
                "llm": llm_commands.cmd_llm, "config": config_commands.cmd_config,
                "monitor": monitor_commands.cmd_monitor}
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    if args.tracking_uri:
        os.environ["MLFLOW_TRACKING_URI"] = args.tracking_uri
    # the libraries' deprecation notices (pathspec, BentoML, FLAML, ...) are for their developers, not our users
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    try:
        if args.command != "config":  # config lists the settings even when one is invalid
            _defaults_from_settings(args)
        return commands[args.command](args)
    except UserFacingError as exc:
        _error(exc)
        return EXIT_FAILED if exc.status == "failed" else EXIT_REJECTED
    except KeyboardInterrupt:
        _error("interrupted: the training was stopped and nothing more was registered; rerun with the same --run-id "
               "to resume from the finished stages")
        return 130


if __name__ == "__main__":
    sys.exit(main())
