"""Operation agent: task skeleton + chosen plan -> a complete training script (and its revisions)."""

from __future__ import annotations

import pprint
import re
from pathlib import Path
from typing import Any

from .brains.base import AgentStep, RecordingBrain
from .contracts import GeneratedScript, PipelineScript, PlanOutcome, RequirementSpec

SKELETONS = Path(__file__).resolve().parents[1] / "skeletons"
_CONFIG_LINE = "CONFIG: dict = {}  # filled in by the operation agent"
# what generated code may not do; the sandbox enforces the network part at run time as well
FORBIDDEN = {
    r"\.launch\(": "starts a demo server",
    r"os\.environ|getenv\(": "reads the environment (secrets live there)",
    r"^\s*(import|from)\s+(requests|urllib|httpx|socket|subprocess)\b": "uses the network or a shell",
}


def build_config(spec: RequirementSpec, outcome: PlanOutcome, *, budget_s: float, n_jobs: int, seed: int = 0) -> dict[str, Any]:
    return {
        "task": spec.problem.downstream_task.value,
        "data_path": spec.dataset.path,
        "target": spec.dataset.target,
        "numeric": outcome.data.numeric,
        "categorical": outcome.data.categorical,
        "metric": spec.problem.metric,
        "direction": spec.problem.metric_direction,
        "n_clusters": spec.problem.n_clusters,
        "candidates": [c.model_dump(mode="json", include={"model", "hyperparameters", "search_space"}) for c in outcome.model.candidates],
        "test_size": 0.2,
        "cv_folds": 3,
        "holdout_above_rows": 20000,
        "hpo_budget_s": round(max(5.0, budget_s * 0.7), 1),
        "max_trials": 200,
        "n_jobs": n_jobs,
        "seed": seed,
    }


def render(config: dict[str, Any], task_family: str = "tabular") -> str:
    skeleton = (SKELETONS / f"{task_family}.py").read_text()
    if _CONFIG_LINE not in skeleton:
        raise RuntimeError(f"skeleton {task_family} lacks its CONFIG line")
    return skeleton.replace(_CONFIG_LINE, "CONFIG: dict = " + pprint.pformat(config, sort_dicts=False, width=110))


def static_problems(source: str) -> list[str]:
    problems = []
    try:
        compile(source, "<generated>", "exec")
    except SyntaxError as exc:
        problems.append(f"syntax error line {exc.lineno}: {exc.msg}")
    for pattern, why in FORBIDDEN.items():
        if re.search(pattern, source, flags=re.MULTILINE):
            problems.append(f"forbidden: {why} ({pattern})")
    if "results.json" not in source or "model.joblib" not in source:
        problems.append("the script must write results.json and model/model.joblib as the skeleton does")
    return problems


def write_script(brain: RecordingBrain, spec: RequirementSpec, outcome: PlanOutcome, config: dict[str, Any],
                 *, version: int, run_dir: Path, previous_error: str = "") -> tuple[PipelineScript, list[str]]:
    """Ask the brain for the script; code that fails the static checks is replaced by the rendered skeleton."""
    reference = render(config)
    answer = brain.answer(AgentStep("operation.write_script", GeneratedScript, {
        "spec": spec, "outcome": outcome, "skeleton": reference, "previous_error": previous_error}))
    problems = static_problems(answer.source)
    source = reference if problems else answer.source
    # the offline brain's answer is the rendered skeleton itself; an LLM that echoes it back still gets the credit
    author = "skeleton renderer" if problems or brain.name == "offline" else brain.name
    path = run_dir / "scripts" / f"train_v{version}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return PipelineScript(version=version, path=str(path), source=source, author=author), problems


def offline_write_script(spec: RequirementSpec, outcome: PlanOutcome, skeleton: str, previous_error: str) -> GeneratedScript:
    """The offline brain's answer: the skeleton rendered with the chosen plan is already complete."""
    return GeneratedScript(source=skeleton, notes="rendered from the task skeleton")
