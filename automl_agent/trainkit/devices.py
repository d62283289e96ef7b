"""Which device trains: CUDA when a GPU is visible (a `gpu` pool's worker), else the CPU.

`AUTOML_AGENT_DEVICE=cpu` forces the CPU (and `cuda` insists on CUDA). Training moves its network and tensors
there; the saved weights are always numpy arrays, so serving loads them on any machine. results.json records it."""

from __future__ import annotations

from ..config import current_settings


def training_device() -> str:
    wanted = current_settings().device.lower()
    if wanted == "cpu":
        return "cpu"
    try:
        import torch
    except ImportError:
        return "cpu"
    if torch.cuda.is_available():
        return "cuda"
    if wanted == "cuda":
        raise RuntimeError("AUTOML_AGENT_DEVICE=cuda, but torch sees no CUDA device on this machine")
    return "cpu"


def device_name(device: str) -> str:
    """What results.json records: 'cpu', or 'cuda:<GPU name>'."""
    if device != "cuda":
        return device
    import torch

    return f"cuda:{torch.cuda.get_device_name(0)}"
