"""Pick the accelerator at run time: CUDA, XPU or Ascend NPU (torch_npu), through the
device-generic torch.accelerator / torch.get_device_module APIs where they exist."""

import torch


def accelerator_type():
    if hasattr(torch, "accelerator") and torch.accelerator.is_available():
        return torch.accelerator.current_accelerator().type
    if hasattr(torch, "xpu") and torch.xpu.is_available():
        return "xpu"
    if hasattr(torch, "npu") and torch.npu.is_available():
        return "npu"
    return "cuda"


def device_module(device_type=None):
    return torch.get_device_module(device_type or accelerator_type())


def host_barrier(device_type):
    """Block the host until all queued work on the accelerator has finished."""
    if device_type == "npu":
        torch.npu.synchronize()
    elif device_type == "xpu":
        torch.xpu.synchronize()
    else:
        torch.accelerator.synchronize()
