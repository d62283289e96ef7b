"""The run report: markdown for people, with a plot of the search where a picture reads faster than a table."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _search_plot(run_dir: Path, results: dict[str, Any]) -> Path | None:
    trials = [t for t in results.get("trials", []) if t.get("value") is not None]
    if not trials:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    maximize = results.get("direction", "maximize") == "maximize"
    best, running = None, []
    for t in trials:
        best = t["value"] if best is None else (max(best, t["value"]) if maximize else min(best, t["value"]))
        running.append(best)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    models = sorted({t["model"] for t in trials})
    for model in models:
        points = [(i + 1, t["value"]) for i, t in enumerate(trials) if t["model"] == model]
        ax.scatter([p[0] for p in points], [p[1] for p in points], s=14, label=model, alpha=0.7)
    ax.plot(range(1, len(trials) + 1), running, color="black", linewidth=1.2, label="best so far")
    ax.set_xlabel("trial")
    ax.set_ylabel(f"validation {results.get('metric', 'score')}")
    ax.set_title("Hyperparameter search")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    path = run_dir / "report_search.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(run_dir: Path, record: dict[str, Any], results: dict[str, Any]) -> tuple[Path, str]:
    lines = [f"# automl-agent run {record['run_id']}", "", f"> {record['instruction']}", "",
             f"- status: **{record['status']}** {record.get('message') or ''}",
             f"- task: {record.get('task_type')} on `{Path(record['data_path']).name}`, target `{record.get('target')}`",
             f"- chosen plan: {record.get('chosen_plan')}; best model: {record.get('best_model')}",
             f"- success score (paper's SR scale): {record.get('success_score')}", ""]
    if record.get("metrics"):
        lines += ["## Test metrics (held-out split)", "", "| metric | value |", "|---|---|"]
        lines += [f"| {k} | {v:.4f} |" for k, v in record["metrics"].items()]
        lines.append("")
    if record.get("constraints"):
        lines += ["## Constraints", "", "| constraint | measured | met |", "|---|---|---|"]
        for c in record["constraints"]:
            measured = "n/a" if c["measured"] is None else f"{c['measured']:.4g}"
            lines.append(f"| {c['name']} {c['op']} {c['target']:g} | {measured} | {'yes' if c['satisfied'] else 'NO'} |")
        lines.append("")
    if results:
        lines += ["## Search", "", f"{results.get('n_trials')} trials in {results.get('hpo_seconds')} s; "
                  f"latency {results.get('latency_ms')} ms per record (p95 {results.get('latency_p95_ms')} ms); "
                  f"size {results.get('model_size_mb')} MB", ""]
        plot = _search_plot(run_dir, results)
        if plot:
            lines += [f"![search]({plot.name})", ""]
    if record.get("corrections"):
        lines += ["## Cross-check corrections", ""] + [f"- {c}" for c in record["corrections"]] + [""]
    lines += ["## Delivery", "", f"- registered model: {record.get('registered_model')}", f"- bento: {record.get('bento_tag')}",
              f"- demo: {record.get('demo_path')}", f"- MLflow: {record.get('mlflow_tracking_uri')} run {record.get('mlflow_run_id')}",
              "", "## Timings (s)", "", "| stage | seconds |", "|---|---|"]
    lines += [f"| {k} | {v:.2f} |" for k, v in record.get("timings", {}).items()]
    markdown = "\n".join(lines) + "\n"
    path = run_dir / "report.md"
    path.write_text(markdown)
    return path, markdown
