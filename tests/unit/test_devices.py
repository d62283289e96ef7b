"""CUDA paths, tested on a CPU machine: device selection, the tensors really moved, results recording the device."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from automl_agent import devices


def test_cuda_is_chosen_when_torch_sees_a_gpu_and_can_be_refused(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.delenv("AUTOML_AGENT_DEVICE", raising=False)
    assert devices.training_device() == "cuda"
    monkeypatch.setenv("AUTOML_AGENT_DEVICE", "cpu")
    assert devices.training_device() == "cpu"


def test_insisting_on_cuda_without_a_gpu_is_an_error(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv("AUTOML_AGENT_DEVICE", "cuda")
    with pytest.raises(RuntimeError, match="no CUDA device"):
        devices.training_device()


def _tiny_images(n=64, size=8):
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, n)
    images = [(np.full((size, size), 200 * y) + rng.integers(0, 30, (size, size))).astype(np.uint8) for y in labels]
    return images, labels


def test_the_cnn_trains_on_the_chosen_device_and_saves_cpu_weights(monkeypatch, tmp_path):
    """The network is moved to whatever training_device() says (a spy records the move); the weights come back as
    numpy arrays. The CUDA run itself is measured on a GPU machine (benchmarks/gpu_jobs.py)."""
    import torch
    from PIL import Image

    from automl_agent import runtime

    images, labels = _tiny_images()
    paths = []
    for i, image in enumerate(images):
        path = tmp_path / f"{i}.png"
        Image.fromarray(image).save(path)
        paths.append(str(path))
    frame = pd.DataFrame({"image": paths})
    moved = []
    real_to = torch.nn.Module.to

    def spy(module, *args, **kwargs):
        moved.append(args[0] if args else kwargs.get("device"))
        return real_to(module, *args, **kwargs)

    monkeypatch.setattr(torch.nn.Module, "to", spy)
    monkeypatch.setattr(devices, "training_device", lambda: "cpu")
    model = runtime.ImageClassifier(kind="cnn", size=8, width=4, epochs=1).fit(frame, labels)
    assert model.device_ == "cpu" and "cpu" in moved
    assert all(isinstance(v, np.ndarray) for v in model.weights_.values())  # servable on any machine


def test_results_record_the_device(tmp_path, monkeypatch):
    from automl_agent.trainkit.evaluation import write_results

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(devices, "training_device", lambda: "cpu")
    write_results({"metric": "f1", "primary_metric": 0.5, "best_model": "x"}, [])
    assert json.loads((tmp_path / "results.json").read_text())["device"] == "cpu"


def test_the_sandbox_passes_the_gpu_selection_but_no_secret(tmp_path, monkeypatch):
    from automl_agent.sandbox import sandbox_env

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s3cret")
    env = sandbox_env(tmp_path, 2)
    assert env["CUDA_VISIBLE_DEVICES"] == "1" and "AWS_SECRET_ACCESS_KEY" not in env
