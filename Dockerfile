# syntax=docker/dockerfile:1
# The automl-agent worker image: what infra/compose.yaml's workers and the Kubernetes gpu pool's job template
# (infra/kubernetes/gpu-base-job-template.json) run. One file, two tags (the version is pyproject.toml's):
#   docker build -t automl-agent:0.1.0-cpu .                                    # CPU torch: the cpu pool
#   docker build --build-arg TORCH_VARIANT=cu128 -t automl-agent:0.1.0-cuda .   # CUDA torch: the gpu pool
# or both at once: docker compose -f infra/compose.yaml build
# TORCH_VARIANT names a PyTorch wheel index (https://download.pytorch.org/whl/<variant>): cpu, or a CUDA build that
# PyTorch publishes for TORCH_VERSION (cu128 here; cu126, cu130, ...). The host supplies the NVIDIA driver (NVIDIA
# Container Toolkit); torch's wheels bring the CUDA libraries.
# Not built on the development machines (they have no Docker engine): tests/unit/test_image_build.py lints this
# file with hadolint and checks that compose and the job template name these tags.

# Debian 12 with Python 3.11: the development machines' release and Python. The builder and the final stage must
# share it: the venv's interpreter is a link to /usr/local/bin/python3.11.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# uv, from its official image, pinned (the version the development machines use)
FROM ghcr.io/astral-sh/uv:0.13.9 AS uv

FROM ${PYTHON_IMAGE} AS builder
COPY --from=uv /uv /usr/local/bin/uv
ARG TORCH_VARIANT=cpu
ARG TORCH_VERSION=2.13.0
# Every extra a worker's runs use (text, image and graph tasks, Dask task runner, remote retrieval sources, CatBoost,
# Excel data). Not [dev] (test tools) nor [local-llm] (llama.cpp and a demo model: a team's agent calls a served LLM).
ARG EXTRAS=text,image,graph,dask,retrieval,boosting,excel
ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    VIRTUAL_ENV=/opt/venv
RUN uv venv --python /usr/local/bin/python3.11 /opt/venv
# torch first, from the PyTorch index of the variant: the extras accept any torch, and the one PyPI would pick is a
# CUDA build of several GB
RUN --mount=type=cache,target=/root/.cache/uv \
    uv pip install --index-url "https://download.pytorch.org/whl/${TORCH_VARIANT}" "torch==${TORCH_VERSION}"
WORKDIR /src
COPY pyproject.toml README.md uv.lock ./
COPY automl_agent ./automl_agent
# Every other package at the version uv.lock holds (as `make setup` installs them), torch and its CUDA libraries
# left out (installed above); then the package itself, not editable (the final stage has no source tree)
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN --mount=type=cache,target=/root/.cache/uv \
    IFS=, read -ra extras <<< "${EXTRAS}" \
    && uv export --locked --no-emit-project --no-hashes --prune torch "${extras[@]/#/--extra=}" \
        -o /tmp/requirements.lock.txt \
    && uv pip install -r /tmp/requirements.lock.txt \
    && uv pip install --no-deps .

FROM ${PYTHON_IMAGE}
ARG TORCH_VARIANT=cpu
# Provenance: docker build --build-arg SOURCE_URL=<the repository's URL> --build-arg REVISION="$(git rev-parse HEAD)"
ARG SOURCE_URL=""
ARG REVISION=""
LABEL org.opencontainers.image.title="automl-agent" \
      org.opencontainers.image.description="automl-agent worker: one sentence in, a trained and served model out" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.revision="${REVISION}" \
      io.automl-agent.torch-variant="${TORCH_VARIANT}"
# libgomp1: the OpenMP runtime LightGBM's wheel links against (not bundled). tini: PID 1, forwards signals to the
# worker and reaps the training subprocesses. bubblewrap: the training scripts' sandbox where the container runtime
# lets it create namespaces; where it cannot, a run falls back to the audit-hook guard and records why.
# DL3008 (pin apt versions) is ignored on purpose: Debian's mirrors keep only the current version of a package in a
# release, so a pin breaks the build at the next point release; the base image tag pins the release (bookworm).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 tini bubblewrap \
    && rm -rf /var/lib/apt/lists/*
# A numeric non-root user (Kubernetes' runAsNonRoot can only verify a numeric one); /workspace is the runs' folder
# (AUTOML_AGENT_WORKDIR), owned by it so that a Docker volume mounted there starts writable
RUN groupadd --gid 10001 automl \
    && useradd --uid 10001 --gid 10001 --create-home --shell /usr/sbin/nologin automl \
    && install -d -o 10001 -g 10001 /workspace
COPY --from=builder /opt/venv /opt/venv
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    AUTOML_AGENT_WORKDIR=/workspace \
    GIT_PYTHON_REFRESH=quiet
USER 10001:10001
WORKDIR /workspace
# No automl-agent ENTRYPOINT: compose's workers run `prefect worker start ...` and the Kubernetes worker sets the
# job's args to `prefect flow-run execute`, both as the command after tini. Alone, the image prints the CLI's help:
#   docker run --rm automl-agent:0.1.0-cpu automl-agent run "..." --data /workspace/data.csv
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["automl-agent", "--help"]
