"""Accelerator-agnostic helpers (CUDA, XPU, Ascend NPU)."""
import logging

import torch

logger = logging.getLogger(__name__)


def current_accelerator() -> torch.device:
    accel = getattr(torch, "accelerator", None)
    if accel is not None and accel.is_available():
        return accel.current_accelerator()
    for name in ("cuda", "xpu", "npu"):
        mod = getattr(torch, name, None)
        if mod is not None and mod.is_available():
            return torch.device(name, mod.current_device())
    return torch.device("cpu")


def device_module(device: torch.device):
    """torch.cuda / torch.xpu / torch.npu for ``device``."""
    if device.type == "cpu":
        raise ValueError("no stream support for cpu tensors")
    mod = getattr(torch, device.type, None)
    if mod is None:
        raise RuntimeError(f"torch has no backend module for {device.type!r} (is the plugin imported?)")
    return mod


def pin_host_buffer(shape, dtype) -> torch.Tensor:
    try:
        return torch.empty(shape, dtype=dtype, pin_memory=True)
    except RuntimeError as exc:  # e.g. pinning disabled in a container
        logger.warning("pinned allocation failed (%s); falling back to pageable memory", exc)
        return torch.empty(shape, dtype=dtype)
