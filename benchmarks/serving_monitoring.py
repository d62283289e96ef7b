"""The served model with its traffic log on: what the log costs, and whether the service holds for minutes on a
busy machine.

1. Throughput: the churn model served by `automl-agent serve`, 50 concurrent clients, one record per request,
   logging off (AUTOML_AGENT_MONITOR_SAMPLE=0) and on (every record), alternated over several rounds.
2. Soak: logging on, 50 clients for --soak-minutes (default 10) while another process keeps one core busy, plus a
   rude client that sends a large request and hangs up before the answer, again and again. Counted: every
   status and connection error of the 50 polite clients, their latency percentiles, the log's size on disk.
3. The monitor on what the soak served (its time, its verdict on unshifted traffic).

    .venv/bin/python benchmarks/serving_monitoring.py [--rounds 3] [--seconds 20] [--soak-minutes 10]

Writes benchmarks/results/serving_monitoring.md and .json."""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.serving_load import CLI, RESULTS, _serve, _stop  # noqa: E402

INSTRUCTION = "predict customer churn; F1 at least 0.5"


def _burn(stop_at: float) -> None:
    while time.time() < stop_at:
        sum(i * i for i in range(10_000))


async def _rude(url: str, body: bytes, stop_at: float) -> dict:
    """Send a large request and hang up before the answer, over and over: the server must not let it hurt the
    others."""
    import aiohttp

    hung_up = 0
    async with aiohttp.ClientSession() as session:
        while time.time() < stop_at:
            try:
                async with session.post(url, data=body, headers={"content-type": "application/json"},
                                        timeout=aiohttp.ClientTimeout(total=0.02)) as response:
                    await response.read()
            except (asyncio.TimeoutError, aiohttp.ClientError):
                hung_up += 1
            await asyncio.sleep(0.05)
    return {"hung_up": hung_up}


def _rude_process(url: str, body: bytes, stop_at: float, out: multiprocessing.Queue) -> None:
    out.put(asyncio.run(_rude(url, body, stop_at)))


def _abandoned(metrics: str) -> int | None:
    """Requests the service dropped because their client hung up (None: a service without the counter)."""
    values = [float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
              if line.startswith("automl_agent_abandoned_requests_total")]
    return int(sum(values)) if values else None


def _train(workdir: Path, env: dict, scratch: Path) -> dict:
    kept = scratch / "churn.run.json"
    if kept.exists():
        return json.loads(kept.read_text())
    print("training the churn model (20 s budget)...", flush=True)
    done = subprocess.run([*CLI, "--workdir", str(workdir), "run", INSTRUCTION, "--data",
                           str(ROOT / "automl_agent/datasets/churn.csv"), "--budget", "20", "--json", "--plans", "1"],
                          env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    kept.write_text(done.stdout)
    return json.loads(done.stdout)


def main() -> int:
    import httpx
    import pandas as pd

    from automl_agent.serving.loadgen import hammer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--soak-minutes", type=float, default=10.0)
    parser.add_argument("--keep", type=Path, default=None, help="a folder kept afterwards; a model there is reused")
    parser.add_argument("--out", default="serving_monitoring", help="results name under benchmarks/results")
    args = parser.parse_args()
    result: dict = {"clients": args.clients, "seconds": args.seconds, "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="serving-monitoring-") as tmp:
        scratch = args.keep.resolve() if args.keep else Path(tmp)
        scratch.mkdir(parents=True, exist_ok=True)
        workdir = scratch / "ws"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLFLOW_", "BENTOML_", "AUTOML_AGENT_"))}
        env["AUTOML_AGENT_HOME"] = str(scratch / "home")
        env["AUTOML_AGENT_RETRIEVAL"] = "none"
        frame = pd.read_csv(ROOT / "automl_agent/datasets/churn.csv").drop(columns=["churn"])
        rows = json.loads(frame.sample(2000, random_state=3).to_json(orient="records"))
        bodies = [json.dumps({"records": [row]}).encode() for row in rows]
        try:
            record = _train(workdir, env, scratch)
            rates: dict[str, list[dict]] = {"off": [], "on": []}
            for round_ in range(args.rounds):
                for mode in ("off", "on"):
                    logs = scratch / f"logs-{mode}-{round_}"
                    shutil.rmtree(logs, ignore_errors=True)  # a kept folder holds the last run's traffic
                    server, port = _serve(workdir, {**env, "AUTOML_AGENT_MONITOR_DIR": str(logs),
                                                    "AUTOML_AGENT_MONITOR_SAMPLE": "0" if mode == "off" else "1"},
                                          record["run_id"])
                    try:
                        url = f"http://127.0.0.1:{port}/predict"
                        hammer(url, bodies, clients=args.clients, duration_s=3)  # warm-up
                        report = hammer(url, bodies, clients=args.clients, duration_s=args.seconds, max_requests=10**6)
                    finally:
                        _stop(server)
                    rates[mode].append(report.model_dump())
                    print(f"round {round_ + 1} logging {mode}: {report.requests_per_s:.0f} req/s, p99 "
                          f"{report.p99_ms:.0f} ms, errors {report.errors}", flush=True)
            median = {mode: statistics.median(r["requests_per_s"] for r in reports) for mode, reports in rates.items()}
            result["throughput"] = {"rounds": rates, "median_req_per_s": median,
                                    "on_over_off": round(median["on"] / median["off"], 3)}

            logs = scratch / "logs-soak"
            shutil.rmtree(logs, ignore_errors=True)
            server, port = _serve(workdir, {**env, "AUTOML_AGENT_MONITOR_DIR": str(logs)}, record["run_id"])
            seconds = args.soak_minutes * 60
            stop_at = time.time() + seconds
            burner = multiprocessing.Process(target=_burn, args=(stop_at,))
            queue: multiprocessing.Queue = multiprocessing.Queue()
            big = json.dumps({"records": rows[:1000]}).encode()
            rude = multiprocessing.Process(target=_rude_process,
                                           args=(f"http://127.0.0.1:{port}/predict", big, stop_at, queue))
            try:
                burner.start()
                rude.start()
                soak = hammer(f"http://127.0.0.1:{port}/predict", bodies, clients=args.clients, duration_s=seconds,
                              max_requests=10**8)
                rude.join(60)
                after = httpx.post(f"http://127.0.0.1:{port}/predict", json={"records": rows[:3]}, timeout=30)
                abandoned = _abandoned(httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=30).text)
            finally:
                burner.join(60)
                _stop(server)
            log_bytes = sum(p.stat().st_size for p in logs.rglob("served-*"))
            result["soak"] = {"minutes": args.soak_minutes, "report": soak.model_dump(),
                              "rude_client": queue.get(timeout=5) if not queue.empty() else {},
                              "answers_after": after.status_code, "abandoned": abandoned,
                              "log_mb": round(log_bytes / 2**20, 2),
                              "log_files": len(list(logs.rglob("served-*")))}
            print(f"soak: {soak.requests} requests, errors {soak.errors} {soak.status_counts}, p99 {soak.p99_ms:.0f} "
                  f"ms; rude client {result['soak']['rude_client']}; log {result['soak']['log_mb']} MB", flush=True)

            started = time.time()
            monitor = subprocess.run([*CLI, "--workdir", str(workdir), "monitor", record["run_id"], "--log-dir",
                                      str(logs), "--json"], env=env, capture_output=True, text=True, timeout=900)
            verdict = json.loads(monitor.stdout) if monitor.stdout.strip().startswith("{") else {}
            result["monitor"] = {"exit": monitor.returncode, "seconds": round(time.time() - started, 1),
                                 "served_rows": verdict.get("served_rows"), "drifted": verdict.get("drifted"),
                                 "drifted_columns": [c["column"] for c in verdict.get("columns", []) if c["drifted"]],
                                 "stderr": monitor.stderr[-500:] if monitor.returncode not in (0, 3) else ""}
            print(f"monitor: exit {monitor.returncode} in {result['monitor']['seconds']} s on "
                  f"{verdict.get('served_rows')} records", flush=True)
        finally:
            subprocess.run([*CLI, "--workdir", str(workdir), "server", "stop"], env=env, capture_output=True, timeout=60)
    _write(result, args.out)
    soak = result["soak"]["report"]
    return 0 if soak["errors"] == 0 and result["soak"]["answers_after"] == 200 else 1


def _write(result: dict, out: str) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{out}.json").write_text(json.dumps(result, indent=2))
    t, s, m = result["throughput"], result["soak"], result["monitor"]
    r = s["report"]
    lines = ["# The served model with its traffic log", "",
             f"`benchmarks/serving_monitoring.py` on this machine ({result['cores']} cores, shared by the server, the "
             f"load generator and, in the soak, a process that keeps one core busy). The churn model served by "
             f"`automl-agent serve`; {result['clients']} concurrent clients, one record per request.", "",
             "## What the log costs", "",
             f"Logging off (AUTOML_AGENT_MONITOR_SAMPLE=0) and on (every record), alternated, {result['seconds']:g} s each:",
             "", "| round | off (req/s) | on (req/s) | off p99 ms | on p99 ms |", "|---|---|---|---|---|"]
    for i, (off, on) in enumerate(zip(t["rounds"]["off"], t["rounds"]["on"])):
        lines.append(f"| {i + 1} | {off['requests_per_s']:.0f} | {on['requests_per_s']:.0f} | {off['p99_ms']:.0f} "
                     f"| {on['p99_ms']:.0f} |")
    lines += ["", f"Median: {t['median_req_per_s']['off']:.0f} req/s off, {t['median_req_per_s']['on']:.0f} on: "
                  f"**{t['on_over_off']}x** with the log on (target: at least 0.9x).", "",
              f"## Soak: {s['minutes']:g} minutes on a busy machine", "",
              f"- {r['requests']} requests from {result['clients']} clients: **{r['errors']} errors**, statuses "
              f"{r['status_counts']}{' (first: ' + r['first_error'] + ')' if r['first_error'] else ''}.",
              f"- Latency: p50 {r['p50_ms']:.0f} ms, p90 {r['p90_ms']:.0f} ms, **p99 {r['p99_ms']:.0f} ms**, max "
              f"{r['max_ms']:.0f} ms; {r['requests_per_s']:.0f} req/s.",
              f"- A rude client sent 1,000-record requests and hung up after 20 ms, "
              f"{s['rude_client'].get('hung_up', '?')} times; the service dropped "
              f"{s.get('abandoned') if s.get('abandoned') is not None else 'an uncounted number of'} of them unanswered; "
              f"a request after the soak got {s['answers_after']}.",
              f"- The log: {s['log_mb']} MB in {s['log_files']} files (cap: 20 MB per server process, in 3 rotated "
              "files).", "",
              "## The monitor on the soak's traffic", "",
              f"`automl-agent monitor` on {m['served_rows']} logged records: exit {m['exit']} in {m['seconds']} s "
              f"(drifted columns: {', '.join(m['drifted_columns']) or 'none'}). The traffic was the table's own rows, "
              "sent as they are: no drift is the right answer."]
    (RESULTS / f"{out}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
