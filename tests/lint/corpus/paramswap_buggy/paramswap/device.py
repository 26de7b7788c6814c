# SPDX-License-Identifier: Apache-2.0
import torch


def device_module():
    return torch.get_device_module()


def current_device() -> torch.device:
    acc = torch.accelerator.current_accelerator()
    return torch.device(acc.type, torch.accelerator.current_device_index())


def compute_stream():
    return torch.accelerator.current_stream()


def new_stream():
    return device_module().Stream()


def new_event():
    return device_module().Event()
