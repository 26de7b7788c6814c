"""Pick the accelerator module the way SGLang's utils do (cuda, xpu, npu, ...)."""

import torch


def get_device_type() -> str:
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def get_device_module():
    return getattr(torch, get_device_type())
