"""`automl-agent deploy`: the work pools, the GPU slot limit and the deployments, on the server PREFECT_API_URL names.

Entry points are importable module paths (`automl_agent.flows.deployed:run`), so a worker loads the flows from the
installed package, whatever its working directory; no code is pulled from a folder.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ..platform.prefect_api import ensure_pool, prefect_client
from ..training import IN_THIS_RUN, TRAIN_FLOW, slot_limit_name


@dataclass
class DeploymentSpec:
    flow_name: str
    name: str
    entrypoint: str
    pool: str
    description: str
    schedule_cron: str | None = None
    paused: bool = False
    tags: list[str] = field(default_factory=lambda: ["automl-agent"])

    @property
    def full_name(self) -> str:
        return f"{self.flow_name}/{self.name}"


def deployment_specs(run_pool: str = "cpu", training_pools: tuple[str, ...] = ("cpu", "gpu")) -> list[DeploymentSpec]:
    specs = [
        DeploymentSpec("automl-agent", "run", "automl_agent.flows.deployed:run", run_pool,
                       "One sentence and a dataset in; a trained, verified, registered model out. Fill in the "
                       "instruction and the data (a path the worker can read, or a URL)."),
        DeploymentSpec("automl-agent-bench", "nightly", "automl_agent.flows.bench:nightly", run_pool,
                       "The dev benchmark suite (7 task types), scored as the paper does; nightly at 02:00 UTC "
                       "once its schedule is resumed.", schedule_cron="0 2 * * *", paused=True),
        DeploymentSpec("automl-agent-watch", "drift", "automl_agent.flows.monitoring:watch", run_pool,
                       "Retrain when the served model drifted: a drift check of the model's @champion against the "
                       "traffic it answered, then, only on drift, a retraining run through the champion gate. "
                       "Scheduled by `automl-agent schedule add --when-drifted`."),
    ]
    specs += [DeploymentSpec(TRAIN_FLOW, pool, "automl_agent.flows.training:train", pool,
                             f"Trains a generated script on the {pool!r} pool (started by automl-agent runs with "
                             f"training_pool={pool}).") for pool in training_pools]
    return specs


def _ensure_slot_limit(client, pool: str, slots: int) -> None:
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate, GlobalConcurrencyLimitUpdate
    from prefect.exceptions import ObjectNotFound

    name = slot_limit_name(pool)
    try:
        client.read_global_concurrency_limit_by_name(name)
        client.update_global_concurrency_limit(name, GlobalConcurrencyLimitUpdate(limit=slots, active=True))
    except ObjectNotFound:
        client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name=name, limit=slots, active=True))


def run_form(schema: dict[str, Any], training_pools: tuple[str, ...]) -> dict[str, Any]:
    """automl-agent/run's parameters as a team fills them in the Prefect UI's Run form: the instruction and the data
    required, plain text boxes where the flow takes 'empty' (not a str-or-None switch), and the training pool a
    choice among the pools `deploy` gave a training deployment. Direct calls of the flow keep its own signature."""
    form = copy.deepcopy(schema)
    properties = form["properties"]
    for prop in properties.values():
        if sorted(map(str, prop.get("anyOf", []))) == sorted(map(str, [{"type": "string"}, {"type": "null"}])):
            del prop["anyOf"]
            prop.update(type="string", default="")
    properties["data"].pop("default", None)
    properties["data"]["description"] = ("Path on the worker, or URL (http, https, s3, ...), of the CSV/Parquet table or "
                                         "graph folder to train on; openml://ID, hf://OWNER/NAME, kaggle://OWNER/DATASET.")
    properties["training_pool"].update(enum=[IN_THIS_RUN, *training_pools], default=IN_THIS_RUN,
                                       description="Work pool that trains the generated script; 'this run': in this "
                                                   "flow run's own process.")
    form["required"] = ["instruction", "data"]
    return form


def _flow_object(entrypoint: str):
    from prefect.flows import load_flow_from_entrypoint

    return load_flow_from_entrypoint(entrypoint, use_placeholder_flow=False)


def deploy(api_url: str | None = None, run_pool: str = "cpu", training_pools: tuple[str, ...] = ("cpu", "gpu"),
           gpu_slots: int = 1) -> list[dict[str, Any]]:
    """Create (or update) pools, the GPU slot limit and every deployment; returns one row per deployment."""
    from prefect.client.schemas.actions import DeploymentScheduleCreate
    from prefect.client.schemas.schedules import CronSchedule
    from prefect.utilities.callables import parameter_schema

    rows = []
    with prefect_client(api_url) as client:
        for pool in {run_pool, *training_pools}:
            ensure_pool(client, pool)
        if "gpu" in training_pools:
            _ensure_slot_limit(client, "gpu", gpu_slots)
        for spec in deployment_specs(run_pool, training_pools):
            flow = _flow_object(spec.entrypoint)
            flow_id = client.create_flow_from_name(spec.flow_name)
            schedules = ([DeploymentScheduleCreate(schedule=CronSchedule(cron=spec.schedule_cron, timezone="UTC"),
                                                   active=not spec.paused)] if spec.schedule_cron else None)
            parameters = parameter_schema(flow.fn).model_dump_for_openapi()
            if spec.full_name == "automl-agent/run":
                parameters = run_form(parameters, training_pools)
            deployment_id = client.create_deployment(
                flow_id, spec.name, entrypoint=spec.entrypoint, work_pool_name=spec.pool, description=spec.description,
                parameter_openapi_schema=parameters, schedules=schedules,
                paused=spec.paused, tags=spec.tags, pull_steps=[], enforce_parameter_schema=True)
            rows.append({"deployment": spec.full_name, "id": str(deployment_id), "pool": spec.pool,
                         "entrypoint": spec.entrypoint, "schedule": spec.schedule_cron, "paused": spec.paused})
    return rows
