"""BentoML service for a model delivered by automl-agent (copied into each bento; reads its settings beside it).

Each request is checked on its own (a 400 that says what is wrong), then joins an adaptive batch: requests that
arrive while the model is busy are answered by one call of the model. The request size is bounded and an API key
can be required (AUTOML_AGENT_API_KEY); see automl_agent.serving.middleware. A request whose client hangs up
leaves the batch queue (automl_agent.serving.disconnect)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import bentoml
from starlette.responses import Response

from automl_agent.config import current_settings
from automl_agent.serving.batching import AdaptiveBatcher
from automl_agent.serving.disconnect import StopWhenClientLeaves
from automl_agent.serving.middleware import RequestGuard
from automl_agent.serving.payload import PayloadError, check_records, records_frame
from automl_agent.trainkit.graph_model import UnknownNodeError
from automl_agent.monitoring.reference import REFERENCE_FILE
from automl_agent.monitoring.served_log import ServedLog, log_folder
from automl_agent.monitoring.service_metrics import PredictionMetrics

HERE = Path(__file__).resolve().parent
SETTINGS = json.loads((HERE / "bento_config.json").read_text())
SCHEMA = json.loads((HERE / "schema.json").read_text())
CONFIG = current_settings()
WORKERS = CONFIG.serve_workers or min(os.cpu_count() or 1, 4)


@bentoml.service(name=SETTINGS["service_name"], traffic={"timeout": 60},
                 workers=WORKERS,
                 logging={"access": {"enabled": CONFIG.access_log}})
class DeliveredModel:
    bento_model = bentoml.models.BentoModel(SETTINGS["bento_model_tag"])

    def __init__(self) -> None:
        # check_records is the schema check (clearer messages, nulls allowed in numbers): the model itself answers
        self.model = bentoml.mlflow.load_model(self.bento_model).get_raw_model()
        if "torch" in sys.modules:  # the workers share the cores; idle torch threads spinning would starve the rest
            sys.modules["torch"].set_num_threads(max(1, (os.cpu_count() or 1) // WORKERS))
        self.batcher = AdaptiveBatcher(self._predict_records)
        # what was asked and answered, for `automl-agent monitor` (AUTOML_AGENT_MONITOR_SAMPLE=0 turns it off)
        self.served = ServedLog(log_folder(CONFIG.monitor_dir, SETTINGS["service_name"]), SCHEMA,
                                model=SETTINGS["registered_model"], sample=CONFIG.monitor_sample,
                                max_mb=CONFIG.monitor_max_mb)
        self.metrics = PredictionMetrics(SCHEMA, HERE / REFERENCE_FILE)

    def _predict_records(self, records: list[dict[str, Any]]):
        return self.model.predict(records_frame(records, SCHEMA))

    @bentoml.api
    async def predict(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        try:
            values = await self.batcher.predict(check_records(records, SCHEMA))
        except (PayloadError, UnknownNodeError) as exc:  # UnknownNodeError: a node id the graph does not have
            self.metrics.refused_request()
            return Response(json.dumps({"error": str(exc)}), status_code=400, media_type="application/json")
        self.metrics.answered(values)
        self.served.write(records, values)
        # the JSON written here, not by BentoML: its generic path derives the output's JSON schema per response
        body = json.dumps({"predictions": values, "task": SCHEMA["task"], "model": SETTINGS["registered_model"]})
        return Response(body, media_type="application/json")

    @bentoml.api
    def schema(self) -> dict[str, Any]:
        return {"columns": SCHEMA["columns"], "task": SCHEMA["task"], "classes": SCHEMA.get("classes"),
                "example": SCHEMA.get("example")}


DeliveredModel.add_asgi_middleware(RequestGuard)
DeliveredModel.add_asgi_middleware(StopWhenClientLeaves)
