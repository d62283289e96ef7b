"""OpenML's REST API (JSON): datasets shaped like the user's, and the flows that scored best on their tasks. The
best flows become priors that re-rank the offline brain's model families."""

from __future__ import annotations

import re
import time
from collections import defaultdict

from ...agents.contracts import KnowledgeItem, TaskType
from ..http import records, request_json
from ..query import OPENML_TASK_TYPE, RetrievalQuery
from ...config import current_settings
from .base import Source, clean, first_endpoint

DEFAULT_URL = "https://www.openml.org/api/v1"
WEB_URL = "https://www.openml.org"
NO_RESULTS = (412,)  # OpenML answers an empty list with HTTP 412 and error code 372

# our metric -> OpenML evaluation measure, and whether larger is better there
MEASURES = {"f1": ("f_measure", True), "accuracy": ("predictive_accuracy", True), "roc_auc": ("area_under_roc_curve", True),
            "rmse": ("root_mean_squared_error", False), "mae": ("mean_absolute_error", False)}
DEFAULT_MEASURE = {TaskType.tabular_classification: ("area_under_roc_curve", True),
                   TaskType.tabular_regression: ("root_mean_squared_error", False)}
# flow names (scikit-learn, mlr, R and others as OpenML spells them) -> the knowledge base's model keys
FLOW_FAMILIES = [
    (r"lightgbm|lgbm", "lightgbm"),
    (r"catboost", "catboost"),
    (r"histgradientboosting|gradientboosting|xgboost|\bgbm\b|\.gbm", "hist_gradient_boosting"),
    (r"randomforest|ranger", "random_forest"),
    (r"extratrees", "extra_trees"),
    (r"logisticregression|glmnet|multinom|logreg", "logistic_regression"),
    (r"\bridge|linearregression|glmnet|\blm\b", "ridge"),
]


def openml_endpoint() -> str:
    return first_endpoint(DEFAULT_URL, current_settings().openml_url)


def family_of(flow_name: str) -> str | None:
    name = flow_name.lower()
    for pattern, key in FLOW_FAMILIES:
        if re.search(pattern, name):
            return key
    return None


def _rows(payload, *path: str) -> list[dict]:
    return records(payload, *path, lone_dict_is_list=True)


def _quality(dataset: dict, name: str) -> str:
    for q in dataset.get("quality", []) or []:
        if isinstance(q, dict) and q.get("name") == name:
            return str(q.get("value", ""))
    return ""


class OpenMLSource(Source):
    name = "openml"
    kind = "dataset"

    @property
    def endpoint(self) -> str:
        return openml_endpoint()

    def search(self, query: RetrievalQuery, timeout_s: float, deadline: float, limit: int) -> list[KnowledgeItem]:
        common = {"timeout_s": timeout_s, "deadline": deadline}
        shape = query.shape
        filters = "/status/active"
        if shape.rows:
            filters += f"/number_instances/{max(1, shape.rows // 3)}..{shape.rows * 3}"
        if shape.columns:
            filters += f"/number_features/{max(1, shape.columns // 2)}..{shape.columns * 2}"
        if query.task == TaskType.tabular_classification and shape.classes:
            filters += f"/number_classes/{shape.classes}"
        answer = request_json("GET", f"{self.endpoint}/json/data/list/limit/{limit}{filters}", empty_on=NO_RESULTS, **common)
        datasets = _rows(answer, "data", "dataset")[:limit] if answer is not None else []
        items = [KnowledgeItem(source=self.name, kind="dataset", title=f"{d.get('name')} (OpenML {d.get('did')})",
                               summary=clean(f"{_quality(d, 'NumberOfInstances') or '?'} rows, "
                                             f"{_quality(d, 'NumberOfFeatures') or '?'} features, "
                                             f"{_quality(d, 'NumberOfClasses') or '?'} classes"),
                               url=f"{WEB_URL}/d/{d.get('did')}", facts={"did": str(d.get("did"))})
                 for d in datasets]
        task_type = OPENML_TASK_TYPE.get(query.task)
        measure = MEASURES.get(query.metric) or DEFAULT_MEASURE.get(query.task)
        if task_type in (1, 2) and measure and datasets and time.monotonic() < deadline:
            items += self._best_flows(datasets, task_type, measure, common, limit)
        return items

    def _best_flows(self, datasets: list[dict], task_type: int, measure: tuple[str, bool], common: dict,
                    limit: int) -> list[KnowledgeItem]:
        task_ids = []
        for d in datasets[:3]:
            answer = request_json("GET", f"{self.endpoint}/json/task/list/type/{task_type}/data_id/{d.get('did')}/limit/2",
                                  empty_on=NO_RESULTS, **common)
            task_ids += [str(t.get("task_id")) for t in _rows(answer, "tasks", "task")] if answer is not None else []
        if not task_ids:
            return []
        function, larger_better = measure
        order = "desc" if larger_better else "asc"
        answer = request_json("GET", f"{self.endpoint}/json/evaluation/list/function/{function}/task/"
                                     f"{','.join(task_ids)}/sort_order/{order}/limit/100", empty_on=NO_RESULTS, **common)
        if answer is None:
            return []
        best: dict[tuple[str, str], dict] = {}
        for e in _rows(answer, "evaluations", "evaluation"):
            family = family_of(str(e.get("flow_name", "")))
            if family is None:
                continue
            key = (str(e.get("task_id")), family)
            value = float(e.get("value"))
            if key not in best or (value > float(best[key]["value"])) == larger_better:
                best[key] = e | {"family": family}
        per_task: dict[str, list[dict]] = defaultdict(list)
        for (task, _), e in best.items():
            per_task[task].append(e)
        items = []
        for task, rows in per_task.items():
            rows.sort(key=lambda e: float(e["value"]), reverse=larger_better)
            for rank, e in enumerate(rows[:limit], start=1):
                items.append(KnowledgeItem(
                    source=self.name, kind="flow", title=f"{e['family']}: {clean(str(e.get('flow_name')), 120)}",
                    summary=f"rank {rank} on OpenML task {task} ({e.get('data_name')}): {function} {float(e['value']):.4f}",
                    url=f"{WEB_URL}/r/{e.get('run_id')}",
                    facts={"model_key": e["family"], "rank": str(rank), "task": task, function: f"{float(e['value']):.4f}"}))
        return items


def family_priors(items: list[KnowledgeItem], known: list[str]) -> dict[str, float]:
    """Model key -> mean reciprocal rank of its best flow across OpenML's similar tasks (1.0: best everywhere)."""
    ranks: dict[str, list[float]] = defaultdict(list)
    tasks = {i.facts.get("task") for i in items if i.kind == "flow"}
    for item in items:
        key = item.facts.get("model_key")
        if item.kind == "flow" and key in known:
            ranks[key].append(1.0 / int(item.facts.get("rank", "1")))
    return {k: round(sum(v) / max(1, len(tasks)), 3) for k, v in sorted(ranks.items())}
