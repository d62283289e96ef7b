"""The team-scale definitions cannot run here (no Docker engine, no Kubernetes): structural checks that fail on a
broken file, and the Prefect definitions checked against the real flows."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
INFRA = ROOT / "infra"


def test_compose_has_the_team_stack_wired_together():
    compose = yaml.safe_load((INFRA / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "minio", "prefect-server", "mlflow", "worker-cpu", "worker-gpu"} <= set(services)
    for name, service in services.items():
        assert "image" in service, name
        for dependency in service.get("depends_on", {}):
            assert dependency in services, f"{name} depends on unknown service {dependency}"
    assert "postgresql" in services["prefect-server"]["environment"]["PREFECT_API_DATABASE_CONNECTION_URL"]
    mlflow_command = services["mlflow"]["command"]
    assert "--serve-artifacts" in mlflow_command and "s3://" in mlflow_command and "postgresql://" in mlflow_command
    for worker, pool in (("worker-cpu", "cpu"), ("worker-gpu", "gpu")):
        assert f"--pool {pool}" in services[worker]["command"]
        assert services[worker]["environment"]["PREFECT_API_URL"] == "http://prefect-server:4200/api"
        assert services[worker]["environment"]["MLFLOW_TRACKING_URI"] == "http://mlflow:5000"
    devices = services["worker-gpu"]["deploy"]["resources"]["reservations"]["devices"][0]
    assert devices["driver"] == "nvidia" and "gpu" in devices["capabilities"]
    assert set(compose["volumes"]) >= {"postgres", "minio", "workspace"}


def test_kubernetes_gpu_job_template_requests_a_gpu_and_every_placeholder_is_a_variable():
    template = json.loads((INFRA / "kubernetes" / "gpu-base-job-template.json").read_text())
    container = template["job_configuration"]["job_manifest"]["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "{{ gpus }}"
    text = json.dumps(template["job_configuration"])
    import re

    placeholders = set(re.findall(r"\{\{ (\w+) \}\}", text))
    assert placeholders <= set(template["variables"]["properties"]), placeholders - set(template["variables"]["properties"])


def test_kubernetes_manifests_are_valid_objects():
    documents = [d for d in yaml.safe_load_all((INFRA / "kubernetes" / "mlflow.yaml").read_text()) if d]
    kinds = {d["kind"] for d in documents}
    assert kinds == {"Deployment", "Service"}
    for document in documents:
        assert {"apiVersion", "kind", "metadata", "spec"} <= set(document)
    deployment = next(d for d in documents if d["kind"] == "Deployment")
    assert deployment["spec"]["selector"]["matchLabels"] == deployment["spec"]["template"]["metadata"]["labels"]
    for values in ("values-prefect-server.yaml", "values-worker-gpu.yaml"):
        assert isinstance(yaml.safe_load((INFRA / "kubernetes" / values).read_text()), dict)
    worker = yaml.safe_load((INFRA / "kubernetes" / "values-worker-gpu.yaml").read_text())["worker"]
    assert worker["config"]["workPool"] == "gpu" and worker["config"]["type"] == "kubernetes"


def test_prefect_yaml_entrypoints_load_as_flows_and_take_its_parameters():
    """The bug this replaces: a file-path entrypoint with relative imports crashed every flow run."""
    from prefect.flows import load_flow_from_entrypoint

    from automl_agent.deployments.register import deployment_specs

    config = yaml.safe_load((ROOT / "automl_agent" / "deployments" / "prefect.yaml").read_text())
    registered = {(s.name, s.entrypoint, s.pool) for s in deployment_specs()}
    for deployment in config["deployments"]:
        entrypoint = deployment["entrypoint"]
        assert ".py:" not in entrypoint  # a module path, importable from the installed package
        flow = load_flow_from_entrypoint(entrypoint, use_placeholder_flow=False)
        accepted = set(inspect.signature(flow.fn).parameters)
        assert set(deployment.get("parameters", {})) <= accepted
        assert (deployment["name"], entrypoint, deployment["work_pool"]["name"]) in registered


def test_run_deployment_parameters_are_plain_values_with_descriptions():
    from prefect.utilities.callables import parameter_schema

    from automl_agent.flows.automl import run

    schema = parameter_schema(run.fn).model_dump_for_openapi()
    assert schema["required"] == ["instruction"]  # no data: the data agent finds the dataset the instruction names
    for name, field in schema["properties"].items():
        assert field.get("description"), name
        assert field.get("type") in ("string", "number", "integer", "boolean") or "anyOf" in field, (name, field)
