"""AutoGluon's TabularPredictor on the rows the bench hands over, run by AutoGluon's own interpreter.

AutoGluon pins libraries (pandas < 2.4) that automl-agent has moved past, so it lives in an environment of its own
(`make autogluon`) and this file imports nothing of automl_agent: it reads folder/spec.json, train.csv and test.csv,
fits with the preset and time limit named there, and writes folder/predictions.csv (one column, the test rows'
predictions in order).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(folder: Path) -> int:
    import numpy as np
    import pandas as pd
    from autogluon.tabular import TabularPredictor

    spec = json.loads((folder / "spec.json").read_text())
    label = spec["label"]
    train = pd.read_csv(folder / "train.csv", dtype={label: str} if spec["problem_type"] != "regression" else None)
    test = pd.read_csv(folder / "test.csv")
    if spec.get("log_target"):  # RMSLE: AutoGluon has no such scorer; RMSE on log1p of the target is the same goal
        train[label] = np.log1p(train[label])
    options = {"positive_class": spec["positive_class"]} if spec.get("positive_class") is not None else {}
    predictor = TabularPredictor(label=label, problem_type=spec["problem_type"], eval_metric=spec["eval_metric"],
                                 path=str(folder / "models"), verbosity=0, **options)
    fit_options = {"calibrate_decision_threshold": True} if spec.get("calibrate_threshold") else {}
    predictor.fit(train, time_limit=spec["time_limit"], presets=spec["presets"], **fit_options)
    predictions = predictor.predict(test)
    if spec.get("log_target"):
        predictions = np.expm1(predictions)
    pd.DataFrame({"prediction": predictions.to_numpy()}).to_csv(folder / "predictions.csv", index=False)
    (folder / "fitted.json").write_text(json.dumps({"best_model": predictor.model_best,
                                                    "models": len(predictor.model_names())}))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
