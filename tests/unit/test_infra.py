"""The team-scale definitions cannot run here (no Docker engine, no Kubernetes): structural checks that fail on a
broken file, the files validated against the schemas their tools use (the Compose specification's JSON schema, the
Kubernetes API's OpenAPI schemas, offline, from the packages of the dev extra), and the Prefect definitions checked
against the real flows. The image the workers run: tests/unit/test_image_build.py."""

from __future__ import annotations

import copy
import importlib.resources
import inspect
import json
import shlex
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
INFRA = ROOT / "infra"
# The oldest Kubernetes release still in wide use whose schemas kubernetes-validate bundles: a manifest valid here
# is valid on the releases after it for the API groups used (apps/v1, batch/v1, v1)
KUBERNETES_VERSION = "1.30"


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

    from automl_agent.flows.deployed import run

    schema = parameter_schema(run.fn).model_dump_for_openapi()
    assert schema["required"] == ["instruction"]  # no data: the data agent finds the dataset the instruction names
    for name, field in schema["properties"].items():
        assert field.get("description"), name
        assert field.get("type") in ("string", "number", "integer", "boolean") or "anyOf" in field, (name, field)


def test_the_run_form_requires_instruction_and_data_and_offers_the_deployed_pools():
    from prefect.utilities.callables import parameter_schema

    from automl_agent.deployments.register import run_form
    from automl_agent.flows.deployed import run

    form = run_form(parameter_schema(run.fn).model_dump_for_openapi(), ("cpu", "gpu", "big-gpu"))
    assert form["required"] == ["instruction", "data"]
    assert form["properties"]["training_pool"]["enum"] == ["this run", "cpu", "gpu", "big-gpu"]
    assert all("anyOf" not in field for field in form["properties"].values())  # text boxes, not str-or-None switches
    validator = jsonschema.Draft202012Validator(form)
    assert not list(validator.iter_errors({"instruction": "Predict churn", "data": "/d.csv", "training_pool": "gpu"}))
    assert list(validator.iter_errors({"instruction": "Predict churn"}))  # a team's run names its table
    assert list(validator.iter_errors({"instruction": "x", "data": "/d.csv", "training_pool": "nowhere"}))
    assert "<" not in json.dumps(form)  # the UI reads descriptions as markdown: '<data>' would vanish


def test_the_forms_this_run_is_no_pool():
    from automl_agent.training import chosen_pool

    assert [chosen_pool(v) for v in ("this run", "", None, "gpu")] == [None, None, None, "gpu"]


def _compose_spec_validator() -> jsonschema.Draft202012Validator:
    """The Compose specification's JSON schema as check-jsonschema vendors it (its `vendor.compose-spec`): the
    schema `docker compose` validates a file against, read from the installed package, no network."""
    vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    schema = json.loads(vendor.joinpath("compose-spec.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def test_compose_file_is_valid_under_the_compose_specification():
    validator = _compose_spec_validator()
    compose = yaml.safe_load((INFRA / "compose.yaml").read_text())  # the x-worker anchors merged, as compose does
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(compose)]
    assert not errors, errors
    # the schema is strict enough to catch the mistakes a hand-edited file makes
    misspelt = copy.deepcopy(compose)
    misspelt["services"]["worker-gpu"]["deploy"]["resources"]["reservation"] = (
        misspelt["services"]["worker-gpu"]["deploy"]["resources"].pop("reservations"))
    wrong_condition = copy.deepcopy(compose)
    wrong_condition["services"]["worker-cpu"]["depends_on"]["mlflow"]["condition"] = "healthy"
    for broken in (misspelt, wrong_condition):
        assert not validator.is_valid(broken)


def _validate_kubernetes(manifest: dict) -> None:
    """Strict: a field the API does not have is an error too (the API server would drop it with a warning)."""
    kubernetes_validate.validate(manifest, KUBERNETES_VERSION, strict=True)


def test_kubernetes_manifests_validate_against_the_kubernetes_schema():
    documents = [d for d in yaml.safe_load_all((INFRA / "kubernetes" / "mlflow.yaml").read_text()) if d]
    for document in documents:
        _validate_kubernetes(document)
    deployment = copy.deepcopy(next(d for d in documents if d["kind"] == "Deployment"))
    deployment["spec"]["template"]["spec"]["containers"][0]["port"] = 5000  # a typo for `ports`
    with pytest.raises(kubernetes_validate.ValidationError):
        _validate_kubernetes(deployment)


# Pod-spec keys prefect-kubernetes' worker requires in a base job template (its `_get_base_job_manifest`: it refuses
# a template without them, "Job is missing required attributes at the following paths: /spec/template/spec/
# completions, /spec/template/spec/parallelism"; its own default template has them). They are Job fields, not Pod
# fields: the API server drops them with a warning, so the strict check below takes them out first.
PREFECT_REQUIRED_POD_SPEC = {"parallelism": 1, "completions": 1}


def _job_manifest_as_the_worker_sends_it(template: dict) -> dict:
    """The job template's manifest as a Prefect Kubernetes worker submits it for a flow run of a deployment that sets
    no job variables: the placeholders filled by the variables' defaults with Prefect's own functions
    (BaseJobConfiguration.from_template_and_values), then what prefect-kubernetes' prepare_for_flow_run adds: env as
    a list of name/value pairs, the flow run's command as args, its labels, a generateName from its name."""
    from prefect.utilities.templating import apply_values
    from prefect.workers.base import BaseJobConfiguration

    defaults = BaseJobConfiguration._get_base_config_defaults(template["variables"]["properties"])
    configuration = apply_values(copy.deepcopy(template["job_configuration"]), defaults)
    assert not json.dumps(configuration).count("{{"), "a placeholder left unfilled"
    manifest = configuration["job_manifest"]
    flow_run_id, flow_run_name = "0b9c1a52-3f4e-4b8e-9a55-6a3c2d1e0f7a", "brave-otter"
    container = manifest["spec"]["template"]["spec"]["containers"][0]
    env = {**configuration["env"], "PREFECT__FLOW_RUN_ID": flow_run_id}
    container["env"] = [{"name": name, "value": str(value)} for name, value in env.items()]
    container.setdefault("args", shlex.split("prefect flow-run execute"))  # no {{ command }} value: the default
    labels = {"prefect.io/flow-run-id": flow_run_id, "prefect.io/flow-run-name": flow_run_name}
    manifest["metadata"]["labels"] = {**manifest["metadata"].get("labels", {}), **labels}
    manifest["metadata"].setdefault("annotations", {})
    manifest["spec"]["template"].setdefault("metadata", {})["labels"] = dict(labels)
    if manifest["metadata"].get("generateName", "-") in ("-", "None-"):  # {{ name }}- with no name
        manifest["metadata"]["generateName"] = f"{flow_run_name}-"
    return manifest


def test_gpu_job_template_manifest_validates_against_the_kubernetes_schema():
    template = json.loads((INFRA / "kubernetes" / "gpu-base-job-template.json").read_text())
    manifest = _job_manifest_as_the_worker_sends_it(template)
    pod = manifest["spec"]["template"]["spec"]
    for key, value in PREFECT_REQUIRED_POD_SPEC.items():
        assert pod.pop(key, None) == value, f"prefect-kubernetes' worker refuses a job template without {key}: {value}"
    _validate_kubernetes(manifest)
    container = pod["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1  # the gpu pool's jobs each request a GPU
    assert {"name": "AUTOML_AGENT_DEVICE", "value": "cuda"} in container["env"]
    assert any(t["key"] == "nvidia.com/gpu" for t in pod["tolerations"])
    # strict: a misspelt field fails instead of being dropped by the API server
    misspelt = copy.deepcopy(manifest)
    misspelt["spec"]["template"]["spec"]["toleration"] = misspelt["spec"]["template"]["spec"].pop("tolerations")
    with pytest.raises(kubernetes_validate.ValidationError):
        _validate_kubernetes(misspelt)
