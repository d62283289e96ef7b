"""Models saved before the training kit moved to automl_agent/trainkit/ (issue 31) still load and predict the same:
their pickles and skops files name automl_agent.runtime.FrameEncoder, which the old module path still provides.
The fixture was written by the code as it stood before the move."""

from __future__ import annotations

import json
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import skops.io

from automl_agent.platform.tracking import TRUSTED_MODULES

SAVED = Path(__file__).resolve().parents[1] / "fixtures" / "saved_before_trainkit"


def _expected() -> dict:
    return json.loads((SAVED / "expected.json").read_text())


def _check(model) -> None:
    rows = pd.read_csv(SAVED / "rows.csv")
    expected = _expected()
    assert model.predict(rows).tolist() == expected["predictions"]
    assert np.allclose(model.predict_proba(rows)[:, 1], expected["probabilities"], atol=1e-6)


def test_a_pickled_model_from_before_the_move_loads_and_predicts_the_same():
    model = joblib.load(SAVED / "model.joblib")
    assert type(model.steps[0][1]).__module__ == "automl_agent.trainkit.runtime"  # the old name leads to the new home
    _check(model)


def test_a_skops_model_from_before_the_move_loads_with_its_recorded_trusted_types():
    types = _expected()["skops_types"]
    assert types == ["automl_agent.runtime.FrameEncoder"]
    assert all(t.startswith(TRUSTED_MODULES) for t in types)  # the registry's trust list still accepts the old name
    _check(skops.io.load(SAVED / "model.skops", trusted=types))


def test_a_model_saved_now_names_the_training_kit():
    from automl_agent.trainkit.runtime import FrameEncoder

    encoder = FrameEncoder(numeric=["tenure"], categorical=["plan"]).fit(pd.read_csv(SAVED / "rows.csv"))
    types = skops.io.get_untrusted_types(data=skops.io.dumps(encoder))
    assert types == ["automl_agent.trainkit.runtime.FrameEncoder"] and all(t.startswith(TRUSTED_MODULES) for t in types)
