"""Serving under load: a tabular, a text and an image model, each trained by the CLI, served from its bento by
`automl-agent serve`, and hit by 50 concurrent clients sending one record per request (bounded: 15 s or 20,000
requests, 127.0.0.1 only). Compared with the model's own single-record rate in process (model.predict on one row,
median of 300 calls). Also checks that invalid requests get a 4xx with a message under the same load.

    .venv/bin/python benchmarks/serving_load.py [--seconds 15] [--clients 50] [--only tabular,text,image]

Writes benchmarks/results/serving_load.md and .json."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from automl_agent.platform.processes import free_port as _free_port

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CLI = [sys.executable, "-m", "automl_agent.cli.app"]
RESULTS = ROOT / "benchmarks" / "results"


def _cases(scratch: Path) -> dict[str, tuple[str, Path, int]]:
    import pandas as pd

    from automl_agent.data.library_datasets import image_folder

    sms = scratch / "sms.csv"
    pd.read_csv(ROOT / "automl_agent/datasets/sms_spam.csv").sample(1500, random_state=0).to_csv(sms, index=False)
    return {
        "tabular": ("predict customer churn; F1 at least 0.5", ROOT / "automl_agent/datasets/churn.csv", 20),
        "text": ("tell spam messages from normal ones", sms, 20),
        "image": ("recognise the digit in each image", image_folder("digits", scratch / "images"), 20),
    }




def _in_process_rate(workdir: Path, record: dict, schema: dict) -> dict:
    """The model alone on one record: the rate the service is measured against."""
    import bentoml

    from automl_agent.serving.payload import records_frame

    os.environ["BENTOML_HOME"] = str(workdir / "bentoml")
    bento = bentoml.get(record["bento_tag"])
    model = bentoml.mlflow.load_model(bento.info.models[0].tag).get_raw_model()
    frame = records_frame(schema["example"][:1], schema)
    model.predict(frame)
    times = []
    for _ in range(300):
        started = time.perf_counter()
        model.predict(frame)
        times.append(time.perf_counter() - started)
    times.sort()
    median = times[len(times) // 2]
    return {"predict_ms": round(median * 1000, 3), "records_per_s": round(1 / median, 1)}


def _serve(workdir: Path, env: dict, run_id: str) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    server = subprocess.Popen([*CLI, "--workdir", str(workdir), "serve", run_id, "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return server, port
        except httpx.HTTPError:
            time.sleep(1)
    _stop(server)
    raise RuntimeError("the service did not become ready in 180 s")


def _stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def _invalid_body(schema: dict) -> bytes:
    record = dict(schema["example"][0])
    first = schema["columns"][0]
    record[first["name"]] = {"nested": "object"} if first["type"] != "number" else "not a number"
    return json.dumps({"records": [record]}).encode()


def main() -> int:
    from automl_agent.serving.loadgen import hammer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--only", default="tabular,text,image")
    parser.add_argument("--keep", type=Path, default=None,
                        help="a folder for the workspace, kept afterwards; a model already trained there is reused")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="serving-load-") as tmp:
        scratch = args.keep.resolve() if args.keep else Path(tmp)
        scratch.mkdir(parents=True, exist_ok=True)
        workdir = scratch / "ws"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_", "BENTOML_"))}
        env["AUTOML_AGENT_HOME"] = str(scratch / "home")
        env["AUTOML_AGENT_RETRIEVAL"] = "none"
        try:
            for name, (instruction, data, budget) in _cases(scratch).items():
                if name not in args.only.split(","):
                    continue
                kept = scratch / f"{name}.run.json"
                if kept.exists():
                    record = json.loads(kept.read_text())
                else:
                    print(f"[{name}] training ({budget} s budget)...", flush=True)
                    done = subprocess.run([*CLI, "--workdir", str(workdir), "run", instruction, "--data", str(data),
                                           "--budget", str(budget), "--json", "--plans", "1"], env=env,
                                          capture_output=True, text=True, timeout=900)
                    if done.returncode != 0:
                        print(done.stderr[-2000:])
                        return 1
                    record = json.loads(done.stdout)
                    kept.write_text(done.stdout)
                server, port = _serve(workdir, env, record["run_id"])
                try:
                    url = f"http://127.0.0.1:{port}/predict"
                    schema = httpx.post(f"http://127.0.0.1:{port}/schema", json={}, timeout=30).json()
                    schema["target"] = None
                    rate = _in_process_rate(workdir, record, schema)
                    bodies = [json.dumps({"records": [row]}).encode() for row in schema["example"]]
                    hammer(url, bodies, clients=args.clients, duration_s=2)  # warm-up
                    valid = hammer(url, bodies, clients=args.clients, duration_s=args.seconds, max_requests=20_000)
                    invalid = hammer(url, [_invalid_body(schema)], clients=args.clients, duration_s=3,
                                     max_requests=2_000, expect_status=400)
                    ceiling = hammer(f"http://127.0.0.1:{port}/livez", [b""], clients=args.clients, duration_s=5,
                                     max_requests=20_000, method="GET")
                finally:
                    _stop(server)
                row = {"model": name, "best_model": record["best_model"], **rate, "valid": valid.model_dump(),
                       "invalid": invalid.model_dump(), "http_ceiling_per_s": ceiling.requests_per_s,
                       "ratio": round(valid.requests_per_s / rate["records_per_s"], 2)}
                rows.append(row)
                print(f"[{name}] {record['best_model']}: in process {rate['records_per_s']:.0f} records/s; served "
                      f"{valid.requests_per_s:.0f} req/s (x{row['ratio']}), p50 {valid.p50_ms:.0f} ms, p99 "
                      f"{valid.p99_ms:.0f} ms, errors {valid.errors}; invalid: {invalid.status_counts}; GET /livez "
                      f"{ceiling.requests_per_s:.0f} req/s", flush=True)
        finally:
            subprocess.run([*CLI, "--workdir", str(workdir), "server", "stop"], env=env, capture_output=True,
                           timeout=60)
    _write(rows, args)
    return 0 if all(r["valid"]["errors"] == 0 and r["invalid"]["errors"] == 0 for r in rows) else 1


def _write(rows: list[dict], args) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "serving_load.json").write_text(json.dumps(rows, indent=2))
    lines = ["# Serving under load", "",
             f"`benchmarks/serving_load.py`: {args.clients} concurrent clients, one record per request, "
             f"{args.seconds:g} s per model (at most 20,000 requests), on this machine ({os.cpu_count()} cores; the "
             "load generator shares them with the server). `in process` is model.predict on one row, median of 300. "
             "`GET /livez` is the HTTP stack alone (BentoML's app, its tracing and metrics, our middleware) under the "
             "same load: no model can be served faster than that here.",
             "", "| model | best | in process (records/s) | served (req/s) | served / in process | p50 ms | p99 ms "
             "| errors (valid) | invalid answered 4xx | GET /livez (req/s) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        v, i = r["valid"], r["invalid"]
        lines.append(f"| {r['model']} | {r['best_model']} | {r['records_per_s']:.0f} | {v['requests_per_s']:.0f} "
                     f"| {r['ratio']} | {v['p50_ms']:.0f} | {v['p99_ms']:.0f} | {v['errors']} of {v['requests']} "
                     f"| {i['requests'] - i['errors']} of {i['requests']} | {r['http_ceiling_per_s']:.0f} |")
    lines += ["", "Before adaptive batching (main at bd62ee7, the same churn model and load): 75 req/s, p50 646 ms, p99 "
              "838 ms; the service then spent about 9 ms per request turning one record into a frame, and BentoML "
              "derived the output's JSON schema for every response.", "",
              "Where served / in process stays below 1 (a model that answers one record in well under a "
              "millisecond, like the 8x8-pixel digits CNN), the limit is the HTTP stack on these 2 cores, shared "
              "with the load generator: compare the served rate with `GET /livez`, which does no work at all. The "
              "p99 is 50 clients queueing on 2 cores that the load generator shares; p50 is the median request."]
    (RESULTS / "serving_load.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
