"""The benchmark flow: every case of a suite through the automl flow (a subflow per run), a conventional baseline
on the same split with the same budget, scored as in the paper's appendix B.4 (SR, NPS, CS)."""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Literal

from prefect import flow
from pydantic import BaseModel, Field

from .. import context
from ..config import current_settings
from ..agents.contracts import attempt_dir
from ..benchmark.baselines import baseline_name, extra_baseline_name, score_baseline, score_extra_baseline
from ..benchmark.suite import BenchCase, Setting, load_suite, materialise
from ..console import Reporter
from ..errors import UserFacingError
from ..scoring import comprehensive_score, normalised_performance
from ..settings import RunOptions, default_tracking_uri
from ..platform.tracking import Tracker
from ..workspace import new_run_id
from .automl import automl_flow


class BenchOptions(BaseModel):
    suite: str = "dev"
    settings: list[Setting] = Field(default_factory=lambda: ["free", "aware"])
    repeats: int = Field(default=1, ge=1, le=10)
    budget_s: float = Field(default=60.0, gt=0)
    quick: bool = False
    workdir: str = ".automl"
    llm: str = "offline"
    n_plans: int = 3
    baseline: bool = True
    extra_baselines: list[Literal["autogluon"]] = Field(default_factory=list)
    only: list[str] = Field(default_factory=list)  # dataset names; empty: every case of the suite

    @property
    def workdir_path(self) -> Path:
        return Path(self.workdir).expanduser().resolve()


class BenchRow(BaseModel):
    task: str
    dataset: str
    setting: Setting
    repeat: int
    status: Literal["succeeded", "failed", "rejected", "not implemented"]
    run_id: str | None = None
    metric: str
    value: float | None = None
    sr: float = 0.0
    nps: float = 0.0
    cs: float = 0.0
    baseline: str
    baseline_value: float | None = None
    baseline_nps: float | None = None
    other_baselines: dict[str, float | None] = Field(default_factory=dict)  # `--baseline NAME`, by display name
    wall_s: float = 0.0
    message: str = ""


class BenchReport(BaseModel):
    bench_id: str
    suite: str
    options: BenchOptions
    rows: list[BenchRow]
    averages: dict[str, dict[str, float | int]]
    wall_s: float
    json_path: str = ""
    markdown_path: str = ""


@flow(name="automl-agent-bench", flow_run_name="bench-{options.suite}", log_prints=False)
def bench_flow(options: BenchOptions, reporter: Reporter | None = None) -> BenchReport:
    reporter = reporter or Reporter()
    started = time.perf_counter()
    bench_id = new_run_id()
    suite = load_suite(options.suite)
    cases = selected_cases(suite, options)
    out_dir = options.workdir_path / "bench" / bench_id
    rows: list[BenchRow] = []
    total = len(cases) * len(options.settings) * options.repeats
    reporter.say(f"bench {bench_id}: suite {suite.name}{' (quick)' if options.quick else ''}, {total} runs, "
                 f"budget {options.budget_s:g} s each")
    for case in cases:
        for setting in options.settings:
            for repeat in range(1, options.repeats + 1):
                row = _run_case(case, setting, repeat, options, out_dir)
                rows.append(row)
                shown = "-" if row.value is None else f"{row.value:.4f}"
                base = "-" if row.baseline_value is None else f"{row.baseline_value:.4f}"
                base += "".join(f"; {name} {'-' if v is None else f'{v:.4f}'}" for name, v in row.other_baselines.items())
                reporter.say(f"  [{len(rows)}/{total}] {case.dataset:<22} {setting:<5} {row.status:<15} "
                             f"{row.metric}={shown} (baseline {base})  SR {row.sr:.2f}  CS {row.cs:.3f}  {row.wall_s:.0f} s")
    report = BenchReport(bench_id=bench_id, suite=suite.name, options=options, rows=rows, averages=_averages(rows),
                         wall_s=round(time.perf_counter() - started, 1))
    _write(report, out_dir)
    _log_to_mlflow(report, options)
    return report


def selected_cases(suite, options: BenchOptions) -> list[BenchCase]:
    """The suite's cases this bench runs (--quick, --only); a name the suite lacks is refused with the names it has."""
    unknown = sorted(set(options.only) - {c.dataset for c in suite.cases})
    if unknown:
        raise UserFacingError(f"The suite {suite.name!r} has no dataset named {', '.join(unknown)}.",
                              f"Its datasets: {', '.join(c.dataset for c in suite.cases)}.")
    return [c for c in suite.cases if (c.quick or not options.quick) and (not options.only or c.dataset in options.only)]


def _run_case(case: BenchCase, setting: Setting, repeat: int, options: BenchOptions, out_dir: Path) -> BenchRow:
    base = BenchRow(task=case.task, dataset=case.dataset, setting=setting, repeat=repeat, status="not implemented",
                    metric=case.metric, baseline=baseline_name(case.task))
    data = materialise(case, out_dir / "data")
    if data is None:
        return base.model_copy(update={"message": f"no {case.task} support yet"})
    started = time.perf_counter()
    run = RunOptions(instruction=case.instruction(setting), data_path=str(data), workdir=options.workdir,
                     budget_s=options.budget_s, llm=options.llm, n_plans=options.n_plans, seed=repeat - 1,
                     run_id=f"bench-{case.dataset}-{setting}-{repeat}-{new_run_id()}")
    context.attach_reporter(run.run_id, Reporter(quiet=True))
    record = automl_flow(options=run)
    wall = time.perf_counter() - started
    value = record.metrics.get(case.metric)
    nps = normalised_performance(case.metric, value)
    row = base.model_copy(update={
        "status": record.status, "run_id": record.run_id, "value": value, "sr": record.success_score, "nps": nps,
        "cs": comprehensive_score(record.success_score, nps), "wall_s": round(wall, 1), "message": record.message})
    split = attempt_dir(record.script_path) / "split.json" if record.script_path else None
    data = Path(record.data_snapshot) if record.data_snapshot else data  # the rows the run trained on, as it read them
    if options.baseline and split is not None and split.exists():
        try:
            baseline = score_baseline(case.task, case.metric, data, split, options.budget_s, seed=repeat - 1)
        except Exception as exc:  # a baseline that breaks must not lose the agent's result
            row.message = (row.message + f" baseline failed: {type(exc).__name__}: {exc}").strip()
        else:
            row.baseline_value = baseline
            row.baseline_nps = None if baseline is None else normalised_performance(case.metric, baseline)
    for name in options.extra_baselines if split is not None and split.exists() else []:
        try:
            value = score_extra_baseline(name, case.task, case.metric, data, split, options.budget_s)
        except Exception as exc:
            row.message = (row.message + f" {extra_baseline_name(name)} failed: {type(exc).__name__}: {exc}").strip()
            value = None
        row.other_baselines[extra_baseline_name(name)] = value
    return row


def _averages(rows: list[BenchRow]) -> dict[str, dict[str, float | int]]:
    out: dict[str, dict[str, float | int]] = {}
    for setting in ("free", "aware"):
        done = [r for r in rows if r.setting == setting and r.status != "not implemented"]
        if not [r for r in rows if r.setting == setting]:
            continue
        out[setting] = {
            "runs": len(done), "not_implemented": sum(r.setting == setting and r.status == "not implemented" for r in rows),
            "sr": round(statistics.fmean(r.sr for r in done), 4) if done else 0.0,
            "nps": round(statistics.fmean(r.nps for r in done), 4) if done else 0.0,
            "cs": round(statistics.fmean(r.cs for r in done), 4) if done else 0.0,
            "wall_s_max": max((r.wall_s for r in done), default=0.0),
        }
    return out


def to_markdown(report: BenchReport) -> str:
    others = list(dict.fromkeys(name for r in report.rows for name in r.other_baselines))
    lines = [f"# Benchmark {report.bench_id}: suite {report.suite}", "",
             f"budget {report.options.budget_s:g} s per run, brain {report.options.llm}, {report.options.repeats} repeat(s); "
             f"whole suite {report.wall_s:.0f} s. NPS = 1/(1+loss) for losses; CS = 0.5 SR + 0.5 NPS.", "",
             "| task | dataset | setting | status | metric | agent | baseline | baseline value | "
             + "".join(f"{name} | " for name in others) + "SR | NPS | baseline NPS | CS | wall s |",
             "|---|---|---|---|---|---|---|---|" + "---|" * len(others) + "---|---|---|---|---|"]
    fmt = lambda v: "-" if v is None else f"{v:.4f}"  # noqa: E731
    for r in report.rows:
        lines.append(f"| {r.task} | {r.dataset} | {r.setting} | {r.status} | {r.metric} | {fmt(r.value)} | {r.baseline} | "
                     f"{fmt(r.baseline_value)} | " + "".join(f"{fmt(r.other_baselines.get(name))} | " for name in others)
                     + f"{r.sr:.2f} | {r.nps:.4f} | {fmt(r.baseline_nps)} | {r.cs:.4f} | {r.wall_s:.0f} |")
    lines += ["", "| setting | runs | not implemented | SR | NPS | CS | slowest run s |", "|---|---|---|---|---|---|---|"]
    for setting, a in report.averages.items():
        lines.append(f"| {setting} | {a['runs']} | {a['not_implemented']} | {a['sr']:.3f} | {a['nps']:.3f} | {a['cs']:.3f} | "
                     f"{a['wall_s_max']:.0f} |")
    return "\n".join(lines) + "\n"


def _write(report: BenchReport, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    report.json_path = str(out_dir / "results.json")
    report.markdown_path = str(out_dir / "results.md")
    Path(report.markdown_path).write_text(to_markdown(report))
    Path(report.json_path).write_text(report.model_dump_json(indent=2))


def _log_to_mlflow(report: BenchReport, options: BenchOptions) -> None:
    tracking_uri = os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(options.workdir_path)
    tracker = Tracker.for_workspace(tracking_uri, "automl-agent-bench", options.workdir_path)
    run_id = tracker.start(f"bench-{report.suite}-{report.bench_id}", {"suite": report.suite, "quick": str(options.quick)})
    tracker.params(run_id, {"budget_s": options.budget_s, "repeats": options.repeats, "llm": options.llm,
                            "settings": ",".join(options.settings)})
    for setting, values in report.averages.items():
        tracker.metrics(run_id, {k: v for k, v in values.items()}, prefix=f"{setting}_")
    tracker.file(run_id, Path(report.json_path), "bench")
    tracker.file(run_id, Path(report.markdown_path), "bench")
    tracker.finish(run_id, ok=True)


@flow(name="automl-agent-bench", flow_run_name="bench-{suite}", log_prints=False)
def nightly(
    suite: str = Field(default="dev", description="Benchmark suite (dev: 7 task types x 2 datasets)."),
    setting: Literal["free", "aware", "both"] = Field(default="both", description="Constraint-free, -aware or both."),
    quick: bool = Field(default=False, description="One dataset per task type with a 10 s budget."),
    budget: float = Field(default=60.0, gt=0, description="Seconds of training per run."),
) -> BenchReport:
    """The benchmark suite started from the Prefect UI or its nightly schedule (deployment automl-agent-bench/nightly)."""
    from prefect import get_run_logger

    from ..config import user_home
    from ..settings import configure_environment

    workdir = current_settings().workdir or str(user_home() / "workspace")
    configure_environment(Path(workdir))
    options = BenchOptions(suite=suite, settings=["free", "aware"] if setting == "both" else [setting], quick=quick,
                           budget_s=budget, workdir=workdir)
    return bench_flow(options=options, reporter=Reporter(quiet=True, logger=get_run_logger()))
