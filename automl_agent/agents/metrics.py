"""The vocabulary of metrics and complexity measures: names, directions, and the words users use for them."""

from __future__ import annotations

from .contracts import TaskType

# name -> (direction, kind)
MEASURES: dict[str, tuple[str, str]] = {
    "accuracy": ("maximize", "performance"),
    "f1": ("maximize", "performance"),
    "precision": ("maximize", "performance"),
    "recall": ("maximize", "performance"),
    "roc_auc": ("maximize", "performance"),
    "r2": ("maximize", "performance"),
    "rmse": ("minimize", "performance"),
    "rmsle": ("minimize", "performance"),
    "mse": ("minimize", "performance"),
    "mae": ("minimize", "performance"),
    "mape": ("minimize", "performance"),
    "rand_index": ("maximize", "performance"),
    "adjusted_rand_index": ("maximize", "performance"),
    "nmi": ("maximize", "performance"),
    "silhouette": ("maximize", "performance"),
    "latency_ms": ("minimize", "complexity"),
    "training_time_s": ("minimize", "complexity"),
    "model_size_mb": ("minimize", "complexity"),
    "n_parameters": ("minimize", "complexity"),
    "peak_memory_mb": ("minimize", "complexity"),  # the training's peak resident memory, measured by the sandbox
}

# words in an instruction -> measure name; longest phrases are tried first
ALIASES: dict[str, str] = {
    "accuracy": "accuracy", "acc": "accuracy", "right answer": "accuracy", "the right answer": "accuracy",
    "correct answer": "accuracy", "correct answers": "accuracy", "correctly classified": "accuracy",
    "f1 score": "f1", "f1-score": "f1", "f1": "f1", "f-score": "f1", "f score": "f1",
    # (the F1 of more than two classes is their macro average: trainkit.evaluation)
    "macro f1": "f1", "f1 macro": "f1", "macro-f1": "f1", "macro-averaged f1": "f1", "macro averaged f1": "f1",
    "macro f1 score": "f1", "f1-macro": "f1",
    "precision": "precision", "recall": "recall", "sensitivity": "recall",
    "roc auc": "roc_auc", "area under the roc curve": "roc_auc", "area under the curve": "roc_auc",
    "area under the roc": "roc_auc", "roc-auc": "roc_auc", "auc": "roc_auc", "auroc": "roc_auc",
    "r2": "r2", "r^2": "r2", "r squared": "r2", "r-squared": "r2", "r²": "r2",
    "rmse": "rmse", "root mean squared error": "rmse", "root mean square error": "rmse",
    "root-mean-square error": "rmse", "root-mean-squared error": "rmse", "root-mean-square-error": "rmse",
    "rmsle": "rmsle", "root mean squared log error": "rmsle", "root mean squared logarithmic error": "rmsle",
    "mse": "mse", "mean squared error": "mse", "mean square error": "mse",
    "mae": "mae", "mean absolute error": "mae", "average error": "mae", "mean error": "mae",
    "average absolute error": "mae", "average absolute miss": "mae", "absolute miss": "mae", "average miss": "mae",
    "mean absolute deviation": "mae",
    "mape": "mape", "mean absolute percentage error": "mape", "mean absolute percentage": "mape",
    "absolute percentage error": "mape", "percentage error": "mape",
    "adjusted rand index": "adjusted_rand_index", "ari": "adjusted_rand_index",
    "rand index": "rand_index", "rand score": "rand_index", "adjusted rand": "adjusted_rand_index",
    "normalized mutual information": "nmi", "normalised mutual information": "nmi", "nmi": "nmi",
    "mutual information": "nmi",
    "silhouette": "silhouette", "silhouette score": "silhouette",
    # scikit-learn's scorer names: scoring='neg_mean_absolute_error'
    "neg_mean_absolute_error": "mae", "neg_root_mean_squared_error": "rmse", "neg_mean_squared_error": "mse",
    "neg_root_mean_squared_log_error": "rmsle", "neg_mean_absolute_percentage_error": "mape", "roc_auc": "roc_auc",
    "adjusted_rand_score": "adjusted_rand_index", "rand_score": "rand_index",
    "normalized_mutual_info_score": "nmi", "silhouette_score": "silhouette",
    # and its metric functions: r2_score(y, pred)
    "r2_score": "r2", "accuracy_score": "accuracy", "f1_score": "f1", "roc_auc_score": "roc_auc",
    "precision_score": "precision", "recall_score": "recall", "mean_absolute_error": "mae",
    "mean_squared_error": "mse", "root_mean_squared_error": "rmse", "mean_absolute_percentage_error": "mape",
    "root_mean_squared_log_error": "rmsle",
}
# 'avg miss', 'avg abs error': 'average' written short
ALIASES.update({"avg " + alias.removeprefix("average "): name for alias, name in list(ALIASES.items())
                if alias.startswith("average ")})

# measures people ask for that automl-agent neither optimises nor reports: named alone, they are refused with the
# ones it has, never swapped silently for another ('balanced accuracy' is not accuracy)
UNSUPPORTED: dict[str, str] = {
    "log loss": "log loss", "log-loss": "log loss", "logloss": "log loss", "logarithmic loss": "log loss",
    "cross-entropy": "cross-entropy", "cross entropy": "cross-entropy", "brier": "the Brier score",
    "kappa": "Cohen's kappa", "matthews": "the Matthews correlation", "mcc": "the Matthews correlation",
    "balanced accuracy": "balanced accuracy", "balanced_accuracy": "balanced accuracy", "neg_log_loss": "log loss",
    "top-5 accuracy": "top-k accuracy", "top-k accuracy": "top-k accuracy",
    "pr auc": "PR AUC", "pr-auc": "PR AUC", "auprc": "PR AUC", "average precision": "average precision",
    "precision-recall auc": "PR AUC", "area under the precision-recall curve": "PR AUC", "gini": "the Gini coefficient",
    "f-beta": "F-beta", "fbeta": "F-beta", "smape": "sMAPE", "wape": "WAPE",
    "mase": "MASE", "pinball": "pinball loss", "quantile loss": "quantile loss", "median absolute error": "median absolute error",
    "medae": "median absolute error", "rmspe": "RMSPE", "explained variance": "explained variance",
    "davies-bouldin": "the Davies-Bouldin index", "davies bouldin": "the Davies-Bouldin index",
    "calinski": "the Calinski-Harabasz index", "dunn index": "the Dunn index",
}

TASK_METRICS: dict[TaskType, set[str]] = {
    TaskType.tabular_classification: {"accuracy", "f1", "precision", "recall", "roc_auc"},
    TaskType.text_classification: {"accuracy", "f1", "precision", "recall", "roc_auc"},
    TaskType.time_series_forecasting: {"rmse", "mse", "rmsle", "mae", "mape"},
    TaskType.image_classification: {"accuracy", "f1", "precision", "recall"},
    TaskType.node_classification: {"accuracy", "f1", "precision", "recall"},
    TaskType.tabular_regression: {"rmse", "mse", "rmsle", "mae", "mape", "r2"},
    TaskType.tabular_clustering: {"rand_index", "adjusted_rand_index", "nmi", "silhouette"},
}

COMPLEXITY = {name for name, (_, kind) in MEASURES.items() if kind == "complexity"}


def direction(name: str) -> str:
    return MEASURES[name][0]


def kind(name: str) -> str:
    return MEASURES[name][1]


def is_loss(name: str) -> bool:
    return MEASURES.get(name, ("maximize", ""))[0] == "minimize" and kind(name) == "performance"
