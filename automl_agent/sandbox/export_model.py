"""Run in the sandbox after training: unpickle the script's model/model.joblib here, where running code is
contained, and write it again as skops (model/model.skops), which the flow loads without running any of it."""

import json
from pathlib import Path

import joblib
import skops.io

model = joblib.load(Path("model") / "model.joblib")
data = skops.io.dumps(model)
(Path("model") / "model.skops").write_bytes(data)
(Path("model") / "model_types.json").write_text(json.dumps(skops.io.get_untrusted_types(data=data)))
print("exported", len(data), "bytes")
