from __future__ import annotations

import torch

device_module = torch.get_device_module()


def get_device_name() -> str:
    acc = torch.accelerator.current_accelerator()
    return acc.type if acc is not None else "cpu"


def page_pairs(host_indices: torch.Tensor, device_indices: torch.Tensor, page_size: int):
    return zip(
        host_indices[::page_size].tolist(), device_indices[::page_size].tolist()
    )
