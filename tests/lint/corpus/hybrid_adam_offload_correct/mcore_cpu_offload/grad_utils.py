# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Iterable, Iterator

import torch


def param_generator(optimizer: torch.optim.Optimizer) -> Iterator[torch.Tensor]:
    for group in optimizer.param_groups:
        for param in group["params"]:
            yield param


def main_grad_of(param: torch.Tensor):
    """Megatron keeps fp32 gradients in `main_grad` when gradient accumulation fusion is on."""
    return getattr(param, "main_grad", param.grad)


def count_nonfinite(host_grads: Iterable[torch.Tensor]) -> int:
    total = 0
    for grad in host_grads:
        total += int(torch.logical_not(torch.isfinite(grad)).sum())
    return total
