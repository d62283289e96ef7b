"""The report's pictures, each chosen for the task: what people would rather look at than read.

Every function takes plain data (the held-out evidence, results.json) and writes one PNG; it returns None when
its picture does not apply or has nothing to show."""

from __future__ import annotations

import warnings

from pathlib import Path
from typing import Any

import numpy as np

from .evidence import HeldOutEvidence

WIDE, SQUARE = (7.5, 3.6), (5.2, 4.4)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False})
    return plt


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    _pyplot().close(fig)
    return path


def search_history(results: dict[str, Any], path: Path) -> Path | None:
    trials = [t for t in results.get("trials", []) if t.get("value") is not None]
    if not trials:
        return None
    plt = _pyplot()
    maximize = results.get("direction", "maximize") == "maximize"
    running = list((np.maximum if maximize else np.minimum).accumulate([t["value"] for t in trials]))
    fig, ax = plt.subplots(figsize=WIDE)
    for model in sorted({str(t["model"]) for t in trials}):
        points = [(i + 1, t["value"]) for i, t in enumerate(trials) if str(t["model"]) == model]
        ax.scatter(*zip(*points), s=16, label=model, alpha=0.75)
    ax.plot(range(1, len(trials) + 1), running, color="black", linewidth=1.2, label="best so far")
    ax.set(xlabel="trial", ylabel=f"validation {results.get('metric', 'score')}", title="Hyperparameter search")
    ax.legend(fontsize=7, loc="best")
    return _save(fig, path)


def parameter_importance(results: dict[str, Any]) -> dict[str, float]:
    """Optuna's own importance evaluator on the best model family's trials (the others have other parameters)."""
    import optuna
    from optuna.distributions import json_to_distribution

    best = results.get("lead_model") or results.get("best_model")  # a blend's lead member is a family
    trials = [t for t in results.get("trials", []) if t.get("value") is not None and t.get("model") == best
              and t.get("distributions")]
    if len(trials) < 4:
        return {}
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction=results.get("direction", "maximize"))
    for t in trials:
        names = [k for k in t["distributions"] if k != "model" and k in t["params"]]
        if not names:
            continue
        study.add_trial(optuna.trial.create_trial(
            params={k: t["params"][k] for k in names}, value=t["value"],
            distributions={k: json_to_distribution(t["distributions"][k]) for k in names}))
    try:
        with warnings.catch_warnings():  # Optuna's notes on its own estimator are not the user's business
            warnings.simplefilter("ignore")
            return {k: float(v) for k, v in optuna.importance.get_param_importances(study, normalize=True).items()}
    except (RuntimeError, ValueError):  # parameters that never varied, or too few trials
        return {}


def bars(values: dict[str, float], path: Path, title: str, xlabel: str, limit: int = 15) -> Path | None:
    if not values:
        return None
    plt = _pyplot()
    items = sorted(values.items(), key=lambda kv: kv[1], reverse=True)[:limit][::-1]
    fig, ax = plt.subplots(figsize=(WIDE[0], 0.9 + 0.28 * len(items)))
    ax.barh([k for k, _ in items], [v for _, v in items], color="#3b7dd8")
    ax.set(xlabel=xlabel, title=title)
    return _save(fig, path)


def confusion(evidence: HeldOutEvidence, path: Path) -> Path | None:
    if not evidence.y_true:
        return None
    from sklearn.metrics import confusion_matrix

    labels = sorted(set(evidence.y_true) | set(evidence.y_pred), key=str)
    if len(labels) > 30:
        return None
    plt = _pyplot()
    matrix = confusion_matrix(evidence.y_true, evidence.y_pred, labels=labels)
    side = min(9.0, 3.2 + 0.35 * len(labels))
    fig, ax = plt.subplots(figsize=(side + 0.8, side))
    shown = ax.imshow(matrix, cmap="Blues")
    ax.set(xticks=range(len(labels)), yticks=range(len(labels)), xlabel="predicted", ylabel="actual",
           title=f"Confusion matrix ({len(evidence.y_true)} held-out rows)")
    ax.set_xticklabels(labels, rotation=45 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center")
    ax.set_yticklabels(labels)
    if len(labels) <= 15:
        for (i, j), count in np.ndenumerate(matrix):
            ax.text(j, i, str(count), ha="center", va="center",
                    color="white" if count > matrix.max() / 2 else "black", fontsize=8)
    fig.colorbar(shown, ax=ax, fraction=0.046)
    return _save(fig, path)


def per_class_scores(evidence: HeldOutEvidence, path: Path) -> Path | None:
    if not evidence.y_true:
        return None
    from sklearn.metrics import precision_recall_fscore_support

    labels = sorted(set(evidence.y_true), key=str)
    if len(labels) > 30:
        return None
    precision, recall, f1, support = precision_recall_fscore_support(evidence.y_true, evidence.y_pred, labels=labels,
                                                                     zero_division=0)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(WIDE[0], 0.5 * len(labels)), WIDE[1]))
    x = np.arange(len(labels))
    for offset, (name, values) in zip((-0.27, 0, 0.27), (("precision", precision), ("recall", recall), ("F1", f1))):
        ax.bar(x + offset, values, width=0.26, label=name)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{label}\n(n={n})" for label, n in zip(labels, support)], fontsize=7)
    ax.set(ylim=(0, 1.05), title="Scores per class (held-out rows)")
    ax.legend(fontsize=7, ncol=3, loc="lower right")
    return _save(fig, path)


def _binary_scores(evidence: HeldOutEvidence) -> tuple[np.ndarray, np.ndarray, str] | None:
    """(truth as 0/1, the positive class's probability, its name) for two classes; None otherwise."""
    if not evidence.proba or not evidence.classes or len(evidence.classes) != 2 or not evidence.y_true:
        return None
    positive = evidence.classes[1]
    return (np.asarray(evidence.y_true) == positive).astype(int), np.asarray(evidence.proba)[:, 1], positive


def roc_pr(evidence: HeldOutEvidence, path: Path) -> Path | None:
    from sklearn.metrics import auc, precision_recall_curve, roc_curve

    if not evidence.proba or not evidence.classes or not evidence.y_true:
        return None
    plt = _pyplot()
    fig, (roc_ax, pr_ax) = plt.subplots(1, 2, figsize=WIDE)
    proba, truth = np.asarray(evidence.proba), np.asarray(evidence.y_true)
    shown = [1] if len(evidence.classes) == 2 else range(min(len(evidence.classes), 10))
    for k in shown:
        name = evidence.classes[k]
        positive = (truth == name).astype(int)
        if positive.min() == positive.max():
            continue
        fpr, tpr, _ = roc_curve(positive, proba[:, k])
        precision, recall, _ = precision_recall_curve(positive, proba[:, k])
        roc_ax.plot(fpr, tpr, label=f"{name} (AUC {auc(fpr, tpr):.3f})")
        pr_ax.plot(recall, precision, label=f"{name} (base rate {positive.mean():.2f})")
    roc_ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1)
    roc_ax.set(xlabel="false positive rate", ylabel="true positive rate", title="ROC")
    pr_ax.set(xlabel="recall", ylabel="precision", title="Precision-recall", ylim=(0, 1.02))
    roc_ax.legend(fontsize=7, loc="lower right")
    pr_ax.legend(fontsize=7, loc="lower left")
    return _save(fig, path)


def calibration(evidence: HeldOutEvidence, path: Path) -> Path | None:
    binary = _binary_scores(evidence)
    if binary is None:
        return None
    from sklearn.calibration import calibration_curve

    truth, proba, positive = binary
    observed, predicted = calibration_curve(truth, proba, n_bins=10, strategy="quantile")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=SQUARE)
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", linewidth=1, label="perfectly calibrated")
    ax.plot(predicted, observed, marker="o", label="model")
    ax.set(xlabel=f"predicted probability of {positive!r}", ylabel="observed share", title="Calibration (held-out)",
           xlim=(0, 1), ylim=(0, 1))
    ax.legend(fontsize=7)
    return _save(fig, path)


def predicted_vs_actual(evidence: HeldOutEvidence, path: Path) -> Path | None:
    if not evidence.y_true:
        return None
    truth, pred = np.asarray(evidence.y_true, dtype=float), np.asarray(evidence.y_pred, dtype=float)
    plt = _pyplot()
    fig, (scatter, residual_ax) = plt.subplots(1, 2, figsize=WIDE)
    scatter.scatter(truth, pred, s=8, alpha=0.5)
    low, high = float(min(truth.min(), pred.min())), float(max(truth.max(), pred.max()))
    scatter.plot([low, high], [low, high], color="grey", linestyle=":", linewidth=1)
    what = f"{evidence.target}" + (" (one step ahead)" if evidence.windows else "")
    scatter.set(xlabel=f"actual {what}", ylabel="predicted", title="Predicted against actual")
    residuals = truth - pred
    residual_ax.scatter(pred, residuals, s=8, alpha=0.5)
    residual_ax.axhline(0, color="grey", linestyle=":", linewidth=1)
    residual_ax.set(xlabel="predicted", ylabel="actual - predicted", title="Residuals")
    return _save(fig, path)


def forecast_windows(evidence: HeldOutEvidence, path: Path) -> Path | None:
    if not evidence.windows:
        return None
    plt = _pyplot()
    fig, axes = plt.subplots(len(evidence.windows), 1, figsize=(WIDE[0], 2.2 * len(evidence.windows)), squeeze=False)
    for ax, window in zip(axes[:, 0], evidence.windows):
        n, h = len(window.history), len(window.actual)
        ax.plot(range(n), window.history, color="#555555", linewidth=1, label="history")
        ax.plot(range(n, n + h), window.actual, color="black", linewidth=1.2, label="actual")
        ax.plot(range(n, n + h), window.forecast, color="#d8573b", linewidth=1.5, linestyle="--", label="forecast")
        ax.axvline(n - 0.5, color="grey", linestyle=":", linewidth=1)
        ax.set_ylabel(evidence.target or "value")
    axes[0, 0].set_title("Forecast windows from the held-out period")
    axes[0, 0].legend(fontsize=7, ncol=3, loc="upper left")
    axes[-1, 0].set_xlabel("step")
    return _save(fig, path)


def cluster_projection(evidence: HeldOutEvidence, path: Path) -> Path | None:
    if not evidence.projection:
        return None
    points = np.asarray(evidence.projection)
    clusters = np.asarray(evidence.y_pred)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=SQUARE)
    for cluster in sorted(set(clusters.tolist()), key=str):
        chosen = clusters == cluster
        ax.scatter(points[chosen, 0], points[chosen, 1], s=10, alpha=0.7, label=f"cluster {cluster} ({chosen.sum()})")
    ax.set(xlabel="component 1", ylabel="component 2", title="Clusters of the held-out rows")
    ax.legend(fontsize=7, loc="best")
    return _save(fig, path)


def constraints_chart(constraints: list[dict[str, Any]], path: Path) -> Path | None:
    """Each constraint's measurement as a share of its limit: green where met, red where not."""
    measured = [c for c in constraints if c.get("measured") is not None and c.get("target")]
    if not measured:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(WIDE[0], 0.9 + 0.45 * len(measured)))
    names = [f"{c['name']} {c['op']} {c['target']:g}" for c in measured]
    ratios = [c["measured"] / c["target"] for c in measured]
    ax.barh(names, ratios, color=["#3a9a5b" if c["satisfied"] else "#d8573b" for c in measured])
    ax.axvline(1, color="black", linewidth=1)
    for i, c in enumerate(measured):
        ax.text(ratios[i], i, f"  {c['measured']:.4g}", va="center", fontsize=8)
    ax.set(xlabel="measured / limit (the line is the limit)", title="Constraints against their measurements")
    return _save(fig, path)
