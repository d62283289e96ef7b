"""Numbers for retrieval-augmented planning (issue: retrieval from real sources).

    python benchmarks/retrieval.py

Measures, on this machine:
- per source, through its real client over real HTTP against the recorded-answer server on 127.0.0.1
  (tests/retrieval_server.py): the first (cold) call, the second call (disk cache), and a rate-limited call;
- per source against the real public endpoints from this machine (no network here: what a run prints and how
  long it waits), a first and a second run (the second skips sources found unreachable minutes before);
- whether the offline brain's plans change with OpenML priors (the recorded answer for a churn-like table).
Writes benchmarks/results/retrieval.{json,md}.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from automl_agent.agents import manager  # noqa: E402
from automl_agent.agents.brains.base import RecordingBrain, Transcript  # noqa: E402
from automl_agent.agents.brains.offline import OfflineBrain  # noqa: E402
from automl_agent.agents.contracts import Knowledge  # noqa: E402
from automl_agent.retrieval import DataShape, REMOTE, query_for, retrieve  # noqa: E402
from tests.integration.test_retrieval import churn_spec  # noqa: E402
from tests.retrieval_server import RetrievalServer  # noqa: E402

SOURCES = list(REMOTE)
API = {"arxiv": "arxiv", "kaggle": "kaggle", "hf": "hf", "web": "searxng", "openml": "openml"}
ENDPOINT_VARS = ["AUTOML_AGENT_ARXIV_URL", "AUTOML_AGENT_KAGGLE_URL", "KAGGLE_API_ENDPOINT", "HF_ENDPOINT",
                 "AUTOML_AGENT_SEARXNG_URL", "AUTOML_AGENT_OPENML_URL", "HF_HUB_OFFLINE"]


def point_at(server: RetrievalServer, mode: str) -> None:
    os.environ["AUTOML_AGENT_ARXIV_URL"] = server.url(mode, "arxiv") + "/api/query"
    os.environ["AUTOML_AGENT_KAGGLE_URL"] = server.url(mode, "kaggle")
    os.environ["HF_ENDPOINT"] = server.url(mode, "hf")
    os.environ["AUTOML_AGENT_SEARXNG_URL"] = server.url(mode, "searxng")
    os.environ["AUTOML_AGENT_OPENML_URL"] = server.url(mode, "openml")
    os.environ["KAGGLE_USERNAME"], os.environ["KAGGLE_KEY"] = "bench", "not-a-key"
    os.environ.pop("HF_HUB_OFFLINE", None)


def reports(knowledge: Knowledge) -> dict[str, dict]:
    return {r.source: r.model_dump() for r in knowledge.sources}


def main() -> None:
    query = query_for(churn_spec(), DataShape(rows=7043, columns=19, classes=2))
    saved = {k: os.environ.get(k) for k in ENDPOINT_VARS + ["KAGGLE_USERNAME", "KAGGLE_KEY"]}
    out: dict = {"query": query.key()}
    with tempfile.TemporaryDirectory() as tmp, RetrievalServer() as server:
        point_at(server, "ok")
        rows = {}
        for name in SOURCES:
            cache = Path(tmp) / f"local-{name}"
            cold = reports(retrieve(query, [name], cache))[name]
            warm = reports(retrieve(query, [name], cache))[name]
            point_at(server, "limited")
            limited = reports(retrieve(query, [name], Path(tmp) / f"limited-{name}"))[name]
            point_at(server, "ok")
            rows[name] = {"cold_s": cold["seconds"], "items": cold["items"], "cached_s": warm["seconds"],
                          "second_run_cached": warm["cached"], "after_429_s": limited["seconds"],
                          "after_429_error": limited["error"]}
        out["local_recorded_server"] = rows
        point_at(server, "ok")
        with_priors = retrieve(query, ["openml"], Path(tmp) / "priors")
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    for key in ENDPOINT_VARS:  # the real public endpoints
        os.environ.pop(key, None)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        first = retrieve(query, None, Path(tmp))
        first_s = time.monotonic() - started
        started = time.monotonic()
        second = retrieve(query, None, Path(tmp))
        second_s = time.monotonic() - started
        explicit = retrieve(query, SOURCES, Path(tmp) / "explicit")
    out["public_endpoints_from_here"] = {"auto_first_run_s": round(first_s, 2), "auto_second_run_s": round(second_s, 2),
                                         "first": reports(first), "second": reports(second),
                                         "explicit_all": reports(explicit)}
    brain = RecordingBrain(OfflineBrain(), Transcript())
    spec = churn_spec()
    bundled_only = retrieve(query, [], Path(tempfile.mkdtemp()))
    out["plans"] = {
        "without_priors": [[p.title, p.model_families] for p in manager.make_plans(brain, spec, bundled_only, 3)],
        "with_openml_priors": [[p.title, p.model_families] for p in manager.make_plans(brain, spec, with_priors, 3)],
        "priors": with_priors.family_priors,
    }
    results = ROOT / "benchmarks" / "results"
    (results / "retrieval.json").write_text(json.dumps(out, indent=2))
    (results / "retrieval.md").write_text(markdown(out))
    print(markdown(out))


def markdown(out: dict) -> str:
    lines = ["# Retrieval", "", f"Query: `{out['query']}`", "",
             "## Each source's real client against the recorded-answer server (127.0.0.1)", "",
             "| source | items | first call s | second run s (cache) | cached | after a 429 s |", "|---|---|---|---|---|---|"]
    for name, r in out["local_recorded_server"].items():
        lines.append(f"| {name} | {r['items']} | {r['cold_s']:.3f} | {r['cached_s']:.3f} | {r['second_run_cached']} | "
                     f"{r['after_429_s']:.3f}{' (' + r['after_429_error'] + ')' if r['after_429_error'] else ''} |")
    pub = out["public_endpoints_from_here"]
    lines += ["", "## The public endpoints from this machine (default `--retrieval auto`)", "",
              f"First run: {pub['auto_first_run_s']} s for all sources; second run: {pub['auto_second_run_s']} s.", "",
              "| source | first run | second run | named explicitly |", "|---|---|---|---|"]
    for name in pub["first"]:
        def cell(rep):
            r = rep.get(name)
            if r is None:
                return "-"
            return (r["error"] or f"{r['items']} items") + f" ({r['seconds']:.2f} s)"
        lines.append(f"| {name} | {cell(pub['first'])} | {cell(pub['second'])} | {cell(pub['explicit_all'])} |")
    plans = out["plans"]
    lines += ["", "## The offline brain's plans with and without OpenML priors (churn-like table)", "",
              f"Priors: {plans['priors']}", "", "| # | without priors | with OpenML priors |", "|---|---|---|"]
    for i, (a, b) in enumerate(zip(plans["without_priors"], plans["with_openml_priors"]), start=1):
        lines.append(f"| {i} | {a[0]} {a[1]} | {b[0]} {b[1]} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
