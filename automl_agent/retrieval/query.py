"""What retrieval asks about: the parsed task, its domain and constraints, and the data's shape (for OpenML's
similar datasets). Built from the requirement spec, never from the raw instruction alone."""

from __future__ import annotations

import re

from pydantic import BaseModel

from ..agents.contracts import RequirementSpec, TaskType

TASK_WORDS = {
    TaskType.tabular_classification: "tabular classification",
    TaskType.tabular_regression: "tabular regression",
    TaskType.tabular_clustering: "clustering",
    TaskType.image_classification: "image classification",
    TaskType.text_classification: "text classification",
    TaskType.time_series_forecasting: "time series forecasting",
    TaskType.node_classification: "node classification graph neural network",
}
# Hugging Face pipeline tags and OpenML task types for each task
HF_PIPELINE = {
    TaskType.tabular_classification: "tabular-classification",
    TaskType.tabular_regression: "tabular-regression",
    TaskType.image_classification: "image-classification",
    TaskType.text_classification: "text-classification",
    TaskType.time_series_forecasting: "time-series-forecasting",
    TaskType.node_classification: "graph-ml",
}
OPENML_TASK_TYPE = {TaskType.tabular_classification: 1, TaskType.tabular_regression: 2, TaskType.tabular_clustering: 5}


class DataShape(BaseModel):
    rows: int = 0
    columns: int = 0
    classes: int | None = None


class RetrievalQuery(BaseModel):
    task: TaskType
    domain: str = ""
    subject: str = ""
    metric: str = ""
    constraints: list[str] = []
    shape: DataShape = DataShape()

    @property
    def task_words(self) -> str:
        return TASK_WORDS[self.task]

    @property
    def text(self) -> str:
        """The search text: the task, then what it is about (the target and domain)."""
        words = " ".join((self.task_words, self.subject, self.domain)).replace(",", " ").split()
        return " ".join(dict.fromkeys(words))

    def key(self) -> str:
        return f"{self.text} | metric={self.metric} | {self.shape.rows}x{self.shape.columns}/{self.shape.classes}"


def _words(name: str | None) -> str:
    return " ".join(re.sub(r"([a-z])([A-Z])", r"\1 \2", name or "").replace("_", " ").replace("-", " ").split()).lower()


def query_for(spec: RequirementSpec, shape: DataShape | None = None) -> RetrievalQuery:
    problem = spec.problem
    return RetrievalQuery(task=problem.downstream_task, domain=problem.application_domain,
                          subject=_words(spec.dataset.target), metric=problem.metric,
                          constraints=[c.describe() for c in problem.constraints], shape=shape or DataShape())
