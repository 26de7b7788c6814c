# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
from typing import Tuple

import torch

OffloadState = Tuple[torch.device, torch.Tensor]


def offload_to_cpu(tensor: torch.Tensor, stream: torch.cuda.Stream, pin_memory: bool = True) -> OffloadState:
    cpu_backup = torch.empty(
        tensor.size(), dtype=tensor.dtype, layout=tensor.layout, device="cpu", pin_memory=pin_memory
    )
    with torch.cuda.stream(stream):
        cpu_backup.copy_(tensor, non_blocking=pin_memory)
        tensor.record_stream(stream)
    return tensor.device, cpu_backup


def reload_to_gpu(state: OffloadState, stream: torch.cuda.Stream) -> torch.Tensor:
    device, cpu_backup = state
    with torch.cuda.stream(stream):
        restored = torch.empty(cpu_backup.size(), dtype=cpu_backup.dtype, device=device)
        restored.copy_(cpu_backup, non_blocking=cpu_backup.is_pinned())
    return restored


def is_offloaded(state) -> bool:
    return isinstance(state, tuple) and len(state) == 2 and isinstance(state[1], torch.Tensor)
