"""Operation agent: task skeleton + chosen plan -> a complete training script (and its revisions)."""

from __future__ import annotations

import ast
import pprint
import re
from pathlib import Path
from typing import Any

from . import knowledge_base as kb
from .brains.base import AgentStep, RecordingBrain
from .views import outcome_summary
from .contracts import GeneratedScript, PipelineScript, PlanOutcome, RequirementSpec, ScriptEdit

SKELETONS = Path(__file__).resolve().parents[1] / "skeletons"
_CONFIG_LINE = "CONFIG: dict = {}  # filled in by the operation agent"
# what generated code may not do; the sandbox enforces the network part at run time as well
FORBIDDEN = {
    r"\.launch\(": "starts a demo server",
    r"os\.environ|getenv\(": "reads the environment (secrets live there)",
    r"^\s*(import|from)\s+(requests|urllib|httpx|socket|subprocess)\b": "uses the network or a shell",
}


def training_budget_s(spec: RequirementSpec, budget_s: float) -> float:
    """The run's budget, or less where the instruction limits the training's time ('train under a minute'): the search
    and the final fit together then stay inside the limit, a tenth of it left for the refit to overrun."""
    limits = [c.target for c in spec.problem.constraints if c.name == "training_time_s" and c.op in {"<", "<="}]
    return min([budget_s, *(0.9 * limit for limit in limits)])


def build_config(spec: RequirementSpec, outcome: PlanOutcome, *, budget_s: float, n_jobs: int, seed: int = 0) -> dict[str, Any]:
    budget_s = training_budget_s(spec, budget_s)
    return {
        "task": spec.problem.downstream_task.value,
        "data_path": spec.dataset.path,
        "target": spec.dataset.target,
        "numeric": outcome.data.numeric,
        "categorical": outcome.data.categorical,
        "text": outcome.data.text,
        "time_column": outcome.data.time_column,
        "image_column": outcome.data.image_column,
        "node_column": outcome.data.node_column,
        "input_seq_len": spec.problem.input_seq_len,
        "pred_seq_len": spec.problem.pred_seq_len,
        "metric": spec.problem.metric,
        "direction": spec.problem.metric_direction,
        "n_clusters": spec.problem.n_clusters,
        # upper limits the search must respect beyond its metric (a blend that breaks one is not kept)
        "limits": {c.name: c.target for c in spec.problem.constraints
                   if c.name in {"latency_ms", "model_size_mb", "n_parameters"} and c.op in {"<", "<="}},
        "candidates": [{**c.model_dump(mode="json", include={"model", "hyperparameters", "search_space"}),
                        "warm_starts": kb.models(spec.problem.downstream_task).get(c.model, {}).get("warm_starts", [])}
                       for c in outcome.model.candidates],
        "test_size": 0.2,
        "cv_folds": 3,
        "holdout_above_rows": 20000,
        "budget_s": round(budget_s, 1),  # a refit still going when it is spent stops
        "hpo_budget_s": round(max(5.0, budget_s * 0.7), 1),
        "refit_budget_s": round(max(5.0, budget_s * 0.5), 1),  # the blend's refit after the search
        "max_trials": 200,
        "n_jobs": n_jobs,
        "seed": seed,
    }


SKELETON_OF_TASK = {"time_series_forecasting": "forecasting", "image_classification": "image",
                    "node_classification": "graph"}


def render(config: dict[str, Any], task_family: str | None = None) -> str:
    task_family = task_family or SKELETON_OF_TASK.get(config.get("task", ""), "tabular")
    skeleton = (SKELETONS / f"{task_family}.py").read_text()
    if _CONFIG_LINE not in skeleton:
        raise RuntimeError(f"skeleton {task_family} lacks its CONFIG line")
    return skeleton.replace(_CONFIG_LINE, "CONFIG: dict = " + pprint.pformat(config, sort_dicts=False, width=110))


def prompt_view(source: str) -> str:
    """The script as the LLM reads it: the same code without comments and function docstrings (the module
    docstring, which states the inputs and outputs, stays), so the prompt and the script written back are shorter."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ast.get_docstring(node) is not None:
            node.body = node.body[1:] or [ast.Pass()]
    return ast.unparse(tree) + "\n"


def apply_edits(base: str, edits: list[ScriptEdit]) -> tuple[str, list[str]]:
    """The skeleton with the model's edits applied in order; an edit whose excerpt is not found exactly once is a
    problem (fed back to the model), never a guess."""
    problems = []
    for number, edit in enumerate(edits, 1):
        found = base.count(edit.find) if edit.find else 0
        if found != 1:
            problems.append(f"edit {number}: its 'find' text occurs {found} times in the skeleton; "
                            "it must be an exact excerpt that occurs once")
            continue
        base = base.replace(edit.find, edit.replace, 1)
    return base, problems


def static_problems(source: str) -> list[str]:
    problems = []
    try:
        compile(source, "<generated>", "exec")
    except SyntaxError as exc:
        problems.append(f"syntax error line {exc.lineno}: {exc.msg}")
    for pattern, why in FORBIDDEN.items():
        if re.search(pattern, source, flags=re.MULTILINE):
            problems.append(f"forbidden: {why} ({pattern})")
    if ("results.json" not in source and "write_results(" not in source) or "model.joblib" not in source:
        problems.append("the script must write results.json and model/model.joblib as the skeleton does")
    return problems


SKELETON_AUTHOR = "skeleton renderer"


def script_backend(brain: RecordingBrain) -> str:
    """The backend that answers the operation agent (a routed brain may give it its own)."""
    return brain.backend_for(AgentStep("operation.write_script", GeneratedScript, {}))


def writes_code(brain: RecordingBrain) -> bool:
    """Whether the brain answering the operation agent writes code itself (an LLM) or returns the skeleton."""
    return script_backend(brain).partition(":")[0] not in ("offline", "scripted")


def script_path(run_dir: Path, version: int, attempt: int, fallback: bool) -> Path:
    """train_v1.py, train_v1_a2.py, ... for the brain's attempts; train_v1_skeleton.py when the skeleton renderer
    stands in for an LLM author."""
    suffix = "_skeleton" if fallback else (f"_a{attempt}" if attempt > 1 else "")
    return run_dir / "scripts" / f"train_v{version}{suffix}.py"


def write_script(brain: RecordingBrain, spec: RequirementSpec, outcome: PlanOutcome, config: dict[str, Any],
                 *, version: int, run_dir: Path, previous_error: str = "", attempt: int = 1,
                 force_skeleton: bool = False) -> tuple[PipelineScript, list[str]]:
    """Ask the brain for the script. Returns the script and the static problems of the brain's code: when there
    are any, the script returned is the rendered skeleton, and the problems are the feedback for the next attempt.
    `force_skeleton` skips the brain (the fallback after every code attempt failed)."""
    reference = render(config)
    problems: list[str] = []
    llm_author = writes_code(brain)
    if force_skeleton:
        source, author = reference, SKELETON_AUTHOR
    else:
        shown = prompt_view(reference)
        answer = brain.answer(AgentStep("operation.write_script", GeneratedScript, {
            "spec": spec, "outcome": outcome, "skeleton": reference, "previous_error": previous_error},
            # the skeleton's CONFIG already holds the search spaces
            views={"outcome": outcome_summary(outcome), "skeleton": shown}))
        written, problems = (answer.source, []) if answer.source.strip() else apply_edits(shown, answer.edits)
        problems = problems or static_problems(written)
        source = reference if problems else written
        # the offline brain's answer is the rendered skeleton itself; an LLM that echoes it back still gets the credit
        author = SKELETON_AUTHOR if problems or not llm_author else script_backend(brain)
    path = script_path(run_dir, version, attempt, fallback=author == SKELETON_AUTHOR and llm_author)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    if problems:  # keep what the brain wrote, next to the script that replaced it
        script_path(run_dir, version, attempt, fallback=False).with_suffix(".rejected.py").write_text(written)
    return PipelineScript(version=version, path=str(path), source=source, author=author, attempt=attempt), problems
