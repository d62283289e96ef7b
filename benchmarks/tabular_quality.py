"""The model-quality table from one or more `automl-agent bench` results: the agent against FLAML and AutoGluon on
each dataset and split, and, where a dataset ran on several splits (`--repeats`), the means and the wins per split.

    python benchmarks/tabular_quality.py BENCH/results.json [MORE/results.json ...] [--out benchmarks/results/NAME]

A later file's row replaces an earlier one for the same dataset, setting and repeat (a rerun of part of a suite
after a change); baselines the later run skipped (`--no-baseline`) are kept from the earlier one, which scored them
on the same split (the split depends only on the data and the repeat's seed). Bench ids are listed per row, so
every number can be traced to its run.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

LOWER_IS_BETTER = {"rmse", "mae", "rmsle", "mape", "mse"}
AUTOGLUON = "AutoGluon medium_quality"


def merged_rows(paths: list[Path]) -> tuple[list[dict], list[dict]]:
    rows: dict[tuple, dict] = {}
    sources = []
    seen: dict[tuple, list[float]] = {}  # every value each system scored on one split, over all the files
    for path in paths:
        bench = json.loads(path.read_text())
        sources.append({"bench_id": bench["bench_id"], "file": str(path), "only": bench["options"].get("only") or [],
                        "repeats": bench["options"]["repeats"], "budget_s": bench["options"]["budget_s"]})
        for row in bench["rows"]:
            key = (row["dataset"], row["setting"], row["repeat"])
            for system, value in [("automl-agent", row["value"]), (row["baseline"], row["baseline_value"]),
                                  *row["other_baselines"].items()]:
                if value is not None:
                    seen.setdefault((*key, system), []).append(value)
            earlier = rows.get(key)
            row = {**row, "bench_id": bench["bench_id"], "baselines_from": bench["bench_id"]}
            if earlier is not None and row["baseline_value"] is None and not row["other_baselines"]:
                row.update(baseline_value=earlier["baseline_value"], other_baselines=earlier["other_baselines"],
                           baselines_from=earlier["baselines_from"])
            rows[key] = row
    for row in rows.values():
        key = (row["dataset"], row["setting"], row["repeat"])
        row["reruns"] = {system: values for (*k, system), values in seen.items() if tuple(k) == key and len(values) > 1}
    return list(rows.values()), sources


def at_least_as_good(metric: str, ours: float | None, theirs: float | None) -> bool | None:
    if ours is None or theirs is None:
        return None
    ours, theirs = round(ours, 6), round(theirs, 6)  # bench rows keep six decimals of the agent's value
    return ours <= theirs if metric in LOWER_IS_BETTER else ours >= theirs


def summary(rows: list[dict]) -> list[dict]:
    """Per dataset and setting: the mean of each system over its splits and on how many splits the agent was at
    least as good as each baseline."""
    out = []
    for key in dict.fromkeys((r["dataset"], r["setting"]) for r in rows):
        group = [r for r in rows if (r["dataset"], r["setting"]) == key]
        metric = group[0]["metric"]

        def mean(values):
            values = [v for v in values if v is not None]
            return statistics.fmean(values) if len(values) == len(group) else None

        agent = mean(r["value"] for r in group)
        flaml = mean(r["baseline_value"] for r in group)
        autogluon = mean(r["other_baselines"].get(AUTOGLUON) for r in group)
        out.append({
            "dataset": key[0], "setting": key[1], "metric": metric, "splits": len(group), "agent": agent,
            "baseline": group[0]["baseline"], "baseline_mean": flaml, "autogluon": autogluon,
            "wins_vs_baseline": sum(bool(at_least_as_good(metric, r["value"], r["baseline_value"])) for r in group),
            "wins_vs_autogluon": sum(bool(at_least_as_good(metric, r["value"], r["other_baselines"].get(AUTOGLUON)))
                                     for r in group) if autogluon is not None else None,
            "slowest_run_s": max(r["wall_s"] or 0 for r in group),
        })
    return out


def shown(value) -> str:
    return "-" if value is None else f"{value:.4f}"


def markdown(rows: list[dict], table: list[dict], sources: list[dict]) -> str:
    lines = ["# Model quality: automl-agent against FLAML and AutoGluon", "",
             "Made by `python benchmarks/tabular_quality.py` from these bench results (a later one replaces an "
             "earlier one's rows for the same dataset and split):", ""]
    lines += [f"- {s['bench_id']}: {', '.join(s['only']) if s['only'] else 'whole suite'}; {s['repeats']} split(s); "
              f"budget {s['budget_s']:g} s" for s in sources]
    lines += ["", "## Per dataset (mean over its splits)", "",
              "| dataset | metric | splits | automl-agent | FLAML / k-means | AutoGluon | agent at least as good as "
              "FLAML | ... as AutoGluon | slowest run s |", "|---|---|---|---|---|---|---|---|---|"]
    for t in table:
        vs_ag = "-" if t["wins_vs_autogluon"] is None else f"{t['wins_vs_autogluon']}/{t['splits']}"
        lines.append(f"| {t['dataset']} | {t['metric']} | {t['splits']} | {shown(t['agent'])} | "
                     f"{shown(t['baseline_mean'])} | {shown(t['autogluon'])} | {t['wins_vs_baseline']}/{t['splits']} | "
                     f"{vs_ag} | {t['slowest_run_s']:.0f} |")
    lines += ["", "## Every run", "", "| dataset | split (seed) | metric | automl-agent | baseline | baseline value | "
              "AutoGluon | wall s | agent's bench | baselines' bench |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["dataset"], r["repeat"])):
        lines.append(f"| {r['dataset']} | {r['repeat'] - 1} | {r['metric']} | {shown(r['value'])} | {r['baseline']} | "
                     f"{shown(r['baseline_value'])} | {shown(r['other_baselines'].get(AUTOGLUON))} | "
                     f"{r['wall_s']:.0f} | {r['bench_id']} | {r['baselines_from']} |")
    reruns = [(r, system, values) for r in sorted(rows, key=lambda r: (r["dataset"], r["repeat"]))
              for system, values in r.get("reruns", {}).items()]
    if reruns:
        lines += ["", "## The same split scored more than once", "",
                  "Every value a system reached on one split across the bench files above (the table uses the last). "
                  "AutoGluon's time-limited fits vary from run to run; the agent's only where its code changed between "
                  "the runs or a trial ran out of budget.", "",
                  "| dataset | split (seed) | system | values | spread |", "|---|---|---|---|---|"]
        for r, system, values in reruns:
            spread = (max(values) - min(values)) / abs(min(values)) if min(values) else 0.0
            lines.append(f"| {r['dataset']} | {r['repeat'] - 1} | {system} | {', '.join(shown(v) for v in values)} | "
                         f"{spread:.1%} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/tabular_quality"))
    args = parser.parse_args()
    rows, sources = merged_rows(args.results)
    table = summary(rows)
    args.out.with_suffix(".json").write_text(json.dumps({"sources": sources, "summary": table, "rows": rows}, indent=2))
    args.out.with_suffix(".md").write_text(markdown(rows, table, sources))
    print(args.out.with_suffix(".md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
