"""Replays the first blind batch of team routines (issue 27; written by a helper that had not read the code, from
the README alone): the same model name retrained with the full inputs, with one weak column, with one binary
column, with an unmeetable bound; the registry read from pandas with a blank in an integer column; a promotion and
a rollback by hand. Each routine's expectation is the one the helper wrote before its first run.

    python benchmarks/team_routines.py --out benchmarks/results/team_routines_replay   # about 6 minutes on 2 cores

Writes OUT.json and OUT.md."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "automl_agent" / "datasets" / "churn.csv"
NAME = "team-churn"


def cli(workdir: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "automl_agent.cli.app", "--workdir", str(workdir), *args],
                          capture_output=True, text=True, timeout=timeout)


def train(workdir: Path, instruction: str) -> tuple[int, dict]:
    done = cli(workdir, "run", instruction, "--data", str(DATA), "--model-name", NAME, "--budget", "20", "--json")
    try:
        return done.returncode, json.loads(done.stdout)
    except json.JSONDecodeError:
        return done.returncode, {"error": done.stderr[-800:]}


def champion(workdir: Path) -> str | None:
    listing = json.loads(cli(workdir, "models", "list", NAME, "--json").stdout)
    return next((v["version"] for v in listing["versions"] if "champion" in v["aliases"]), None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="team-routines-"))
    rows = []

    def record(rid: str, what: str, expectation: str, ok: bool, outcome: str) -> None:
        rows.append({"id": rid, "routine": what, "expectation": expectation, "outcome": outcome,
                     "verdict": "PASS" if ok else "FAIL"})
        print(f"{rid}: {'PASS' if ok else 'FAIL'}  {outcome}", flush=True)

    started = time.perf_counter()
    rc, r1 = train(workdir, "Predict which customers will churn")
    v1 = (r1.get("registered_model") or {}).get("version")
    record("r1", "first training under a team model name", "exit 0; v1 @champion",
           rc == 0 and champion(workdir) == v1 == "1", f"exit {rc}, f1 {r1.get('metrics', {}).get('f1')}, champion v{champion(workdir)}")
    rc, r2 = train(workdir, "Predict which customers will churn using only the female column")
    model = r2.get("registered_model") or {}
    record("r2", "retrain on one binary column", "trains and registers; @champion stays on v1; says why",
           model.get("alias") in {"challenger", "candidate"} and champion(workdir) == "1",
           f"exit {rc}, v{model.get('version')} @{model.get('alias')}: {(model.get('standing') or {}).get('reason', r2.get('message', ''))[:200]}")
    rc, r2b = train(workdir, "Predict which customers will churn using only the monthly_charges column")
    model = r2b.get("registered_model") or {}
    record("r2b", "retrain on one weak numeric column", "registers; @champion stays on v1; says why",
           model.get("alias") in {"challenger", "candidate"} and champion(workdir) == "1",
           f"exit {rc}, v{model.get('version')} @{model.get('alias')}: {(model.get('standing') or {}).get('reason', '')[:200]}")
    rc, r3 = train(workdir, "Predict which customers will churn")
    model = r3.get("registered_model") or {}
    holder = champion(workdir)
    record("r3", "retrain with the full setup", "@champion on the better of v1/v3, never a one-column version",
           holder in {"1", model.get("version")}, f"exit {rc}, v{model.get('version')} @{model.get('alias')}; champion v{holder}")
    consumer = subprocess.run([sys.executable, "-c", f"""
import mlflow, pandas as pd
from automl_agent.settings import point_mlflow_at
point_mlflow_at('sqlite:///{workdir / "mlflow.db"}')
m = mlflow.pyfunc.load_model('models:/{NAME}@champion')
rows = pd.read_csv('{DATA}').drop(columns=['churn']).head(5)
rows.loc[2, 'tenure'] = None
rows.to_csv('{workdir / "blank.csv"}', index=False)
frame = pd.read_csv('{workdir / "blank.csv"}')
print(frame['tenure'].dtype, list(m.predict(frame)))
"""], capture_output=True, text=True, timeout=300)
    record("r5", "pyfunc @champion on CSV rows with a blank integer", "all 5 rows predicted",
           consumer.returncode == 0 and "float64" in consumer.stdout,
           (consumer.stdout.strip() or consumer.stderr.strip()[-300:])[:300])
    before = champion(workdir)
    other = "3" if before != "3" else "1"
    promoted = cli(workdir, "models", "promote", NAME, other, "--reason", "replay: audit")
    after_promote = champion(workdir)
    back = cli(workdir, "models", "rollback", NAME, "--reason", "replay: undo")
    record("r7", "promote by hand, then roll back", "a CLI moves @champion with a reason; rollback restores it",
           promoted.returncode == 0 and after_promote == other and back.returncode == 0 and champion(workdir) == before,
           f"promote -> v{after_promote} ({promoted.stdout.strip()}); rollback -> v{champion(workdir)}")
    rc, r8 = train(workdir, "Predict which customers will churn. F1 must be at least 0.95.")
    model = r8.get("registered_model") or {}
    record("r8", "a retrain that misses its bound", "exit 1; @candidate; @champion unchanged",
           rc == 1 and model.get("alias") == "candidate" and champion(workdir) == before,
           f"exit {rc}, v{model.get('version')} @{model.get('alias')}; champion v{champion(workdir)}")
    passed = sum(r["verdict"] == "PASS" for r in rows)
    summary = {"passed": passed, "total": len(rows), "seconds": round(time.perf_counter() - started, 1),
               "workdir": str(workdir), "routines": rows}
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(summary, indent=2))
    lines = [f"# Team routines, batch 1 replayed: {passed}/{len(rows)} pass ({summary['seconds']} s)", "",
             "| id | routine | expectation | outcome | verdict |", "|---|---|---|---|---|"]
    lines += [f"| {r['id']} | {r['routine']} | {r['expectation']} | {r['outcome'].replace('|', '/')} | {r['verdict']} |"
              for r in rows]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(f"{passed}/{len(rows)} pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
