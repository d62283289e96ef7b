"""Delivery: a bento in the BentoML store and a Gradio demo file, both for the registered model version."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from ..monitoring.reference import REFERENCE_FILE
from ..platform.model_registry import safe_name
from ..reporting.evidence import HeldOutEvidence
from . import portable

HERE = Path(__file__).resolve().parent


def build_bento(run_dir: Path, model_uri: str, registered: str, schema: dict[str, Any], service_name: str,
                extra_labels: dict[str, str] | None = None, reference: Path | None = None) -> str:
    """Import the registered MLflow model into the BentoML store and build a bento offline; returns its tag.
    `reference`: the training sample `automl-agent monitor` compares served traffic with, packed beside the
    service. The bento carries the project's code and pinned requirements, so it builds and serves anywhere."""
    import bentoml

    bento_model = bentoml.mlflow.import_model(safe_name(service_name + "-model"), model_uri,
                                              labels={"source": "automl-agent"}, metadata={"registered_model": registered})
    ctx = run_dir / "bento"
    if ctx.exists():
        shutil.rmtree(ctx)
    ctx.mkdir(parents=True)
    shutil.copy(HERE / "service_template.py", ctx / "service.py")
    (ctx / "schema.json").write_text(json.dumps(schema, indent=2))
    included = ["service.py", "schema.json", "bento_config.json", *portable.copy_package_source(ctx)]
    if reference is not None and reference.is_file():
        shutil.copy(reference, ctx / REFERENCE_FILE)
        included.append(REFERENCE_FILE)
    requirements = portable.pinned_closure(
        portable.served_libraries(schema["task"], optional_libraries(Path(bento_model.path))))
    (ctx / "bento_config.json").write_text(json.dumps({
        "service_name": safe_name(service_name), "bento_model_tag": str(bento_model.tag), "registered_model": registered,
    }, indent=2))
    # BentoML imports the service as the module "service": one cached by an earlier build in this process would
    # name this bento after the earlier model
    sys.modules.pop("service", None)
    try:
        bento = bentoml.bentos.build(
            service="service:DeliveredModel", build_ctx=str(ctx),
            include=included,
            labels={"source": "automl-agent", "registered_model": safe_name(registered), **(extra_labels or {})},
            # pinned here as a lock would (BentoML's own locking needs the package index); the project travels as source
            python={"lock_packages": False, "packages": requirements,
                    "extra_index_url": portable.extra_index_urls(requirements) or None},
            models=[str(bento_model.tag)],
        )
    finally:
        sys.modules.pop("service", None)
    return str(bento.tag)


def optional_libraries(model_folder: Path) -> list[str]:
    """The optional model libraries (catboost) among the imported MLflow model's own requirements."""
    from ..platform.tracking import OPTIONAL_LIBRARIES

    wanted = set(OPTIONAL_LIBRARIES.values())
    found = set()
    for requirements in model_folder.rglob("requirements.txt"):
        for line in requirements.read_text().splitlines():
            name = re.split(r"[=<>!~\[; ]", line.strip(), maxsplit=1)[0].lower()
            if name in wanted:
                found.add(name)
    return sorted(found)


def write_demo(run_dir: Path, *, tracking_uri: str, model_uri: str, schema: dict[str, Any], title: str,
               description: str, data_path: str, card: dict[str, Any] | None = None,
               evidence: HeldOutEvidence | None = None) -> Path:
    """demo.py and demo_config.json: the form, the model card, and held-out rows as examples (their images copied
    beside the demo, so that the page can show them wherever the data lives)."""
    path = run_dir / "demo.py"
    shutil.copy(HERE / "demo_template.py", path)
    evidence = evidence or HeldOutEvidence(task=schema["task"])
    examples = evidence.examples
    if schema["task"] == "image_classification" and examples:
        examples = _copy_example_images(run_dir, schema, examples, Path(data_path).parent)
    (run_dir / "demo_config.json").write_text(json.dumps({
        "tracking_uri": tracking_uri, "model_uri": model_uri, "schema": schema, "title": title,
        "description": description, "card": card or {}, "examples": examples,
        "example_truth": evidence.example_truth, "typical_error": evidence.typical_error,
        "reference": evidence.reference,
    }, indent=2, default=str))
    return path


def _copy_example_images(run_dir: Path, schema: dict[str, Any], examples: list[dict], data_dir: Path) -> list[dict]:
    column = next(c["name"] for c in schema["columns"] if c["type"] == "image")
    folder = run_dir / "demo_examples"
    folder.mkdir(exist_ok=True)
    copied = []
    for i, row in enumerate(examples):
        source = Path(str(row.get(column)))
        source = source if source.is_absolute() else data_dir / source
        if source.is_file():
            target = folder / f"{i}{source.suffix.lower()}"
            shutil.copy(source, target)
            copied.append({**row, column: f"demo_examples/{target.name}"})
    return copied
