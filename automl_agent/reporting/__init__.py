"""The run report: what was asked, what was built, how well it does on rows it never saw, and why, with the
pictures that fit the task. Written as report.md (beside its PNGs) and report.html (self-contained)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from . import plots
from .document import Picture, Section, Table, to_html, to_markdown
from .evidence import CLASSIFICATION, HeldOutEvidence

__all__ = ["HeldOutEvidence", "ReportFiles", "write_report"]


class ReportFiles(BaseModel):
    markdown_path: str
    html_path: str
    markdown: str
    pictures: list[str]


def _number(value: Any) -> str:
    return "n/a" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


def _held_out_pictures(run_dir: Path, evidence: HeldOutEvidence) -> list[Picture]:
    task, made = evidence.task, []

    def add(function, name: str, caption: str) -> None:
        path = function(evidence, run_dir / f"report_{name}.png")
        if path is not None:
            made.append(Picture(path, caption))

    if task in CLASSIFICATION:
        add(plots.confusion, "confusion", "Confusion matrix: rows are the actual classes, columns the predicted ones.")
        add(plots.per_class_scores, "per_class", "Precision, recall and F1 of each class, with its number of rows.")
        add(plots.roc_pr, "roc_pr", "ROC and precision-recall curves from the model's class probabilities.")
        add(plots.calibration, "calibration", "Calibration: how often the class is true among rows given each "
                                              "probability. Points on the diagonal mean the probabilities can be "
                                              "taken at face value.")
    elif task == "tabular_regression":
        add(plots.predicted_vs_actual, "residuals", "Predicted against actual values, and the residuals. Points on "
                                                    "the dotted lines are exact.")
    elif task == "time_series_forecasting":
        add(plots.forecast_windows, "forecast", "Three windows of the held-out period: the history the model saw, "
                                                "what happened next, and what it forecast.")
        add(plots.predicted_vs_actual, "residuals", "The first step of every held-out window: forecast against actual.")
    elif task == "tabular_clustering":
        add(plots.cluster_projection, "clusters", evidence.projection_note or "The held-out rows by cluster.")
    return made


def write_report(run_dir: Path, record: dict[str, Any], results: dict[str, Any],
                 evidence: HeldOutEvidence | None = None) -> ReportFiles:
    status = record["status"]
    lead = [f"Status: **{status}**" + (f": {record['message']}" if record.get("message") else ""),
            f"> {record['instruction']}",
            f"Task **{(record.get('task_type') or 'unknown').replace('_', ' ')}** on `{Path(record['data_path']).name}`"
            + (f", target `{record['target']}`" if record.get("target") else "")
            + (f" ({record['target_reason']})" if record.get("target_reason") else "")
            + f". Run `{record['run_id']}`, started {record.get('created_at', '')}."]
    for warning in record.get("warnings") or []:
        lead.append(f"**Warning:** {warning}")
    sections: list[Section] = []
    pictures: list[Picture] = []
    if record.get("data_reading") or record.get("data_notes"):
        blocks = [f"Read as {record['data_reading']}." if record.get("data_reading") else ""]
        if record.get("data_notes"):
            blocks.append(list(record["data_notes"]))
        sections.append(Section("How the data was read", [b for b in blocks if b]))

    if record.get("metrics"):
        n_test = results.get("n_test")
        rows = [[k, _number(v)] for k, v in record["metrics"].items()]
        sections.append(Section(f"Test metrics ({n_test} held-out rows)" if n_test else "Test metrics",
                                [Table(["metric", "value"], rows),
                                 f"Best model: `{record.get('best_model')}`; success score {record.get('success_score')} "
                                 "(the paper's scale: runs, deploys, meets the constraints)."]))

    if record.get("constraints"):
        table = Table(["constraint", "measured", "met"],
                      [[f"{c['name']} {c['op']} {c['target']:g}", _number(c["measured"]), "yes" if c["satisfied"] else "**NO**"]
                       for c in record["constraints"]])
        blocks: list = [table]
        chart = plots.constraints_chart(record["constraints"], run_dir / "report_constraints.png")
        if chart:
            blocks.append(Picture(chart, "Each measurement as a share of its limit; green where met, red where not."))
        sections.append(Section("Constraints", blocks))

    if evidence is not None:
        held_out = _held_out_pictures(run_dir, evidence)
        blocks = list(held_out)
        if evidence.typical_error is not None:
            blocks.insert(0, f"Typical error: {evidence.typical_error:.4g} (mean absolute error on "
                             f"{evidence.n_rows} held-out {'windows' if evidence.windows else 'rows'}).")
        if evidence.unavailable:
            blocks.append(f"The held-out pictures could not be drawn: {evidence.unavailable}")
        if blocks:
            sections.append(Section("On rows the model never saw", blocks))
        importance = plots.bars(evidence.feature_importance, run_dir / "report_features.png",
                                "Which columns the model relies on",
                                f"drop in held-out {evidence.importance_scoring} when the column is shuffled")
        if importance:
            sections.append(Section("Feature importance", [
                Picture(importance, "Permutation importance: each column shuffled in turn on the held-out rows; the "
                                    "larger the drop in score, the more the predictions depend on it.")]))

    if record.get("plans"):
        chosen = record.get("chosen_plan")
        rows = [[str(p["plan_id"]), p["title"] + (" **(chosen)**" if p["title"] == chosen else ""),
                 ", ".join(p["model_families"]), p["rationale"]] for p in record["plans"]]
        blocks = [Table(["plan", "title", "model families", "rationale"], rows)]
        if record.get("chosen_reason"):
            blocks.append(f"Why this plan: {record['chosen_reason']}")
        if record.get("corrections"):
            blocks.append(["Cross-check correction: " + c for c in record["corrections"]])
        sections.append(Section("Plans", blocks))

    if results:
        blocks = [f"{results.get('n_trials')} trials in {results.get('hpo_seconds')} s; one prediction takes "
                  f"{results.get('latency_ms')} ms (p95 {results.get('latency_p95_ms')} ms); the model is "
                  f"{results.get('model_size_mb')} MB"
                  + (f"; training held at most {results['peak_memory_mb']} MB of memory." if results.get("peak_memory_mb")
                     else ".")]
        history = plots.search_history(results, run_dir / "report_search.png")
        if history:
            blocks.append(Picture(history, "Every trial's validation score by model family; the line is the best "
                                           "so far."))
        importance = plots.bars(plots.parameter_importance(results), run_dir / "report_params.png",
                                f"Which hyperparameters of {results.get('lead_model') or results.get('best_model')} mattered",
                                "importance (Optuna's fANOVA, sums to 1)")
        if importance:
            blocks.append(Picture(importance, "Hyperparameter importance from Optuna, over the trials of the chosen "
                                              "model family."))
        sections.append(Section("Search", blocks))

    delivery = []
    registered = record.get("registered_model")
    if registered:
        delivery.append(f"registered model `{registered['name']}` version {registered['version']} "
                        f"@{registered['alias']}")
    if record.get("bento_tag"):
        delivery.append(f"bento `{record['bento_tag']}`: serve it with `automl-agent serve {record['run_id']}`")
    if record.get("demo_path"):
        delivery.append(f"demo: `automl-agent demo {record['run_id']}`")
    delivery.append(f"MLflow run `{record.get('mlflow_run_id')}` at {record.get('mlflow_tracking_uri')}")
    if record.get("prefect_ui_url"):
        delivery.append(f"Prefect flow run: {record['prefect_ui_url']}")
    if record.get("sandbox"):
        delivery.append(f"sandbox: {record['sandbox']}")
    sections.append(Section("Delivery", [delivery]))
    if record.get("timings"):
        sections.append(Section("Timings", [Table(["stage", "seconds"],
                                                  [[k, f"{v:.2f}"] for k, v in record["timings"].items()])]))

    for section in sections:
        pictures += [b for b in section.blocks if isinstance(b, Picture)]
    title = f"automl-agent run {record['run_id']}"
    markdown = to_markdown(title, lead, sections)
    markdown_path, html_path = run_dir / "report.md", run_dir / "report.html"
    markdown_path.write_text(markdown)
    html_path.write_text(to_html(title, lead, sections, status=status))
    return ReportFiles(markdown_path=str(markdown_path), html_path=str(html_path), markdown=markdown,
                       pictures=[str(p.path) for p in pictures])
