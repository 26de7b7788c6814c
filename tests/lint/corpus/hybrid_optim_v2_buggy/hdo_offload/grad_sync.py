# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Iterable

import torch


def stage_grads_to_host(
    pairs: Iterable[tuple[torch.Tensor, torch.Tensor]], stream: torch.cuda.Stream
) -> torch.cuda.Event:
    """Enqueue D2H copies of ``(host_grad, device_grad)`` pairs on ``stream``."""
    with torch.cuda.stream(stream):
        for host_grad, device_grad in pairs:
            host_grad.copy_(device_grad, non_blocking=True)
            device_grad.record_stream(stream)
    return stream.record_event()


def copy_params_to_device(
    pairs: Iterable[tuple[torch.Tensor, torch.Tensor]], stream: torch.cuda.Stream
) -> None:
    """Enqueue H2D copies of ``(device_param, host_param)`` pairs on ``stream``."""
    with torch.cuda.stream(stream):
        for device_param, host_param in pairs:
            device_param.data.copy_(host_param, non_blocking=True)
