"""Trials per second and the score they buy: the tabular training script as it is now against the one of an earlier
commit (default: the one before successive halving, log targets and blending), with the same CONFIG, budget and
machine (issue 15).

    python benchmarks/search_speed.py RUN_DIR [RUN_DIR ...] [--before REV] [--repeats N]

RUN_DIR is a finished run's folder; its generated script gives the CONFIG (data, features, candidates, budget).
Writes benchmarks/results/search_speed.{json,md}.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from automl_agent.agents.operation_agent import _CONFIG_LINE  # noqa: E402
from automl_agent.sandbox import run_script  # noqa: E402

BEFORE = "bd62ee7"  # main before issue 15's search work


def config_of(run_dir: Path) -> dict:
    script = sorted((run_dir / "scripts").glob("train_v*.py"))[-1].read_text()
    for node in ast.parse(script).body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "CONFIG":
            return ast.literal_eval(node.value)
    raise SystemExit(f"no CONFIG in {run_dir}")


def skeleton(rev: str | None) -> str:
    path = "automl_agent/skeletons/tabular.py"
    if rev is None:
        return (ROOT / path).read_text()
    return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def run(source: str, config: dict) -> dict:
    import pprint

    with tempfile.TemporaryDirectory(prefix="search-speed-") as tmp:
        folder = Path(tmp)
        script = folder / "train.py"
        script.write_text(source.replace(_CONFIG_LINE, "CONFIG: dict = " + pprint.pformat(config, sort_dicts=False)))
        started = time.perf_counter()
        result = run_script(script, folder, timeout_s=config["hpo_budget_s"] * 4 + 120,
                            read_only=[Path(config["data_path"])])
        wall = time.perf_counter() - started
        if result.returncode != 0:
            return {"error": (folder / "train.log").read_text()[-500:]}
        r = json.loads((folder / "results.json").read_text())
    return {"model": r["best_model"], "trials": r["n_trials"], "pruned": r.get("n_pruned", 0),
            "trials_per_s": round((r["n_trials"] + r.get("n_pruned", 0)) / r["hpo_seconds"], 3),
            "validation": round(r["cv_score"], 4), "test": round(r["primary_metric"], 4), "wall_s": round(wall, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    rows = []
    for run_dir in args.runs:
        config = config_of(run_dir)
        name = Path(config["data_path"]).stem
        # the earlier commit's operation agent wrote no warm starts and no limits into CONFIG
        before = {**config, "candidates": [{k: v for k, v in c.items() if k != "warm_starts"} for c in config["candidates"]]}
        before.pop("limits", None)
        for label, rev, used in ((f"before ({args.before})", args.before, before), ("now", None, config)):
            for repeat in range(args.repeats):
                outcome = run(skeleton(rev), {**used, "seed": repeat})
                rows.append({"dataset": name, "metric": config["metric"], "script": label, "seed": repeat, **outcome})
                print(rows[-1], flush=True)
    out = ROOT / "benchmarks" / "results"
    (out / "search_speed.json").write_text(json.dumps(rows, indent=2))
    lines = ["# Search speed: the tabular script now and before", "",
             "Same CONFIG (from a run's generated script), budget and machine; trials per second count pruned trials.", "",
             "| dataset | metric | script | seed | model | trials | pruned | trials/s | validation | test | wall s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['dataset']} | {r['metric']} | {r['script']} | {r['seed']} | failed: {r['error'][:80]} |")
            continue
        lines.append(f"| {r['dataset']} | {r['metric']} | {r['script']} | {r['seed']} | {r['model']} | {r['trials']} | "
                     f"{r['pruned']} | {r['trials_per_s']} | {r['validation']} | {r['test']} | {r['wall_s']} |")
    (out / "search_speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
