"""The trained model crosses from the sandbox to the flow as skops, not as a pickle: unpickling runs whatever the
file says, so a generated script could otherwise plant code that runs in the flow's process, outside the sandbox.
The pickle is opened inside the sandbox (automl_agent/sandbox/export_model.py) and written again as skops; the flow
loads that with an explicit list of trusted types from the ML libraries and refuses anything else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import UserFacingError
from .sandbox import run_script
from .platform.tracking import TRUSTED_MODULES  # the registry accepts the same families

EXPORT_SCRIPT = Path(__file__).resolve().parent / "sandbox" / "export_model.py"


def load_trained_model(attempt: Path, memory_mb: int = 4096, timeout_s: float = 300) -> Any:
    """The model a script left in `attempt`/model, exported in the sandbox and loaded as skops."""
    import skops.io

    model_dir = attempt / "model"
    for stale in ("model.skops", "model_types.json"):
        (model_dir / stale).unlink(missing_ok=True)
    outcome = run_script(EXPORT_SCRIPT, attempt, timeout_s=timeout_s, memory_mb=memory_mb, threads=1)
    exported = model_dir / "model.skops"
    if outcome.returncode != 0 or not exported.is_file():
        raise UserFacingError(f"The trained model could not be exported from the sandbox: {outcome.tail[-600:]}",
                              "See the training script's log; a model must be a scikit-learn-style estimator saved "
                              "with joblib as the skeleton does.", status="failed")
    declared = json.loads((model_dir / "model_types.json").read_text())
    refused = [t for t in declared if not isinstance(t, str) or not t.startswith(TRUSTED_MODULES)]
    if refused:
        raise UserFacingError(f"The trained model contains types outside the ML libraries: {refused[:10]}; it is not "
                              "delivered.", "A model may hold scikit-learn, LightGBM, CatBoost, NumPy/SciPy and "
                                            "automl-agent's runtime classes only.", status="failed")
    try:
        model = skops.io.load(exported, trusted=declared)
    except Exception as exc:  # noqa: BLE001 - a file that lies about its types, or is damaged
        raise UserFacingError(f"The exported model could not be loaded safely: {exc}",
                              "See the training script's log.", status="failed") from None
    if not callable(getattr(model, "predict", None)):
        raise UserFacingError(f"The training script saved a {type(model).__name__}, not a model with predict().",
                              "Save the fitted estimator with joblib as the skeleton does.", status="failed")
    return model
