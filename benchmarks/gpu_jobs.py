"""Prepare (here) and run (on a GPU machine) the image, text and graph training scripts through the same sandbox
a `gpu` pool's worker uses, then compare with the CPU runs of the very same scripts.

    python benchmarks/gpu_jobs.py prepare --out gpu_jobs --budget 60   # CLI runs here (CPU); jobs in the pool layout
    python benchmarks/gpu_jobs.py run --jobs gpu_jobs --out DIR          # on the GPU machine: each job in the sandbox
    python benchmarks/gpu_jobs.py report --jobs gpu_jobs --gpu DIR       # benchmarks/results/gpu.{json,md}

Each job is what `automl_agent.training.upload_inputs` ships to a worker: the generated script, with its data path
relative to its folder, and the data under data/.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = {"image": "mnist-5k", "text": "sms-spam", "graph": "cora"}


def prepare(out: Path, budget: float) -> None:
    sys.path.insert(0, str(ROOT))
    from automl_agent.benchmark.suite import load_suite, materialise
    from automl_agent.agents.contracts import attempt_dir
    from automl_agent.training import data_snapshot

    suite = {c.dataset: c for c in load_suite("dev").cases}
    workdir = out / "workspace"
    for kind, dataset in CASES.items():
        case = suite[dataset]
        data = materialise(case, out / "cache")
        record = _earlier_run(workdir, data)
        if record is None:
            proc = subprocess.run([sys.executable, "-m", "automl_agent.cli.app", "--workdir", str(workdir), "run", case.free,
                                   "--data", str(data), "--budget", str(budget), "--json", "--quiet", "--prefect",
                                   "ephemeral"] + (["--target", case.target] if case.target else []),
                                  capture_output=True, text=True)
            record = json.loads(proc.stdout)
        attempt = attempt_dir(record["script_path"])
        job = out / kind
        shutil.rmtree(job, ignore_errors=True)
        job.mkdir(parents=True)
        script = Path(record["script_path"]).read_text()
        # the script reads the run's snapshot of the data (a parquet copy of a table), not the file the user gave
        read = re.search(r"'data_path': '([^']+)'", script).group(1)
        source, relative = data_snapshot(read, record["task_type"])
        script = script.replace(repr(read), repr(relative))
        (job / "train.py").write_text(script)
        (job / "data").mkdir()
        (shutil.copytree if source.is_dir() else shutil.copy)(source, job / "data" / source.name)
        cpu = json.loads((attempt / "results.json").read_text())
        (job / "cpu.json").write_text(json.dumps({"dataset": dataset, "run_s": record["timings"]["total"],
                                                  "train_s": record["timings"].get("train"), "metric": cpu["metric"],
                                                  "value": cpu["primary_metric"], "best_model": cpu["best_model"],
                                                  "n_trials": cpu["n_trials"], "device": cpu.get("device")}, indent=2))
        print(kind, json.loads((job / "cpu.json").read_text()))


def _earlier_run(workdir: Path, data: Path) -> dict | None:
    """A succeeded CPU run of the same data in the workspace (prepare is rerun after an interruption)."""
    for path in sorted((workdir / "runs").glob("*/run.json")):
        record = json.loads(path.read_text())
        if record["status"] == "succeeded" and Path(record["data_path"]) == data.resolve():
            return record
    return None


def run(jobs: Path, out: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from automl_agent.sandbox import run_script

    out.mkdir(parents=True, exist_ok=True)
    for kind in CASES:
        folder = jobs / kind
        result = run_script(folder / "train.py", folder, timeout_s=900, memory_mb=65536)
        results = json.loads((folder / "results.json").read_text()) if (folder / "results.json").exists() else {}
        summary = {"returncode": result.returncode, "duration_s": result.duration_s, "metric": results.get("metric"),
                   "value": results.get("primary_metric"), "best_model": results.get("best_model"),
                   "n_trials": results.get("n_trials"), "device": results.get("device"), "tail": result.tail[-1500:]}
        (out / f"{kind}.json").write_text(json.dumps(summary, indent=2))
        print(kind, {k: v for k, v in summary.items() if k != "tail"}, flush=True)


def report(jobs: Path, gpu: Path) -> None:
    rows = []
    for kind, dataset in CASES.items():
        cpu = json.loads((jobs / kind / "cpu.json").read_text())
        on_gpu = json.loads((gpu / f"{kind}.json").read_text())
        rows.append({"task": kind, "dataset": dataset, "cpu": cpu, "gpu": {k: v for k, v in on_gpu.items() if k != "tail"}})
    results = ROOT / "benchmarks" / "results"
    (results / "gpu.json").write_text(json.dumps(rows, indent=2))
    lines = ["| task | dataset | metric | CPU (2 cores): value, trials, best model | GPU: value, trials, best model | "
             "script wall time CPU / GPU | device recorded |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        c, g = r["cpu"], r["gpu"]
        lines.append(f"| {r['task']} | {r['dataset']} | {c['metric']} | {c['value']:.4f}, {c['n_trials']}, {c['best_model']} | "
                     f"{g['value']:.4f}, {g['n_trials']}, {g['best_model']} | {c['train_s']:.0f} s / {g['duration_s']:.0f} s | "
                     f"{c['device']} / {g['device']} |")
    (results / "gpu.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["prepare", "run", "report"])
    parser.add_argument("--out", type=Path, default=Path("gpu_jobs"))
    parser.add_argument("--jobs", type=Path, default=Path("gpu_jobs"))
    parser.add_argument("--gpu", type=Path)
    parser.add_argument("--budget", type=float, default=60.0)
    args = parser.parse_args()
    {"prepare": lambda: prepare(args.out, args.budget), "run": lambda: run(args.jobs, args.out),
     "report": lambda: report(args.jobs, args.gpu)}[args.action]()
