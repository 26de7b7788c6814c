"""Accelerator-agnostic handles, so the loader runs on any torch backend."""

import torch


def device_module():
    return torch.get_device_module(torch.accelerator.current_accelerator())


def current_stream():
    return torch.accelerator.current_stream()


def bind_thread(index: int) -> None:
    torch.accelerator.set_device_index(index)
