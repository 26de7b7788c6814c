# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
from collections import defaultdict
from typing import Dict, List, Tuple

import torch


def is_graph_capturing() -> bool:
    return torch.cuda.is_current_stream_capturing()


def offload_tensor(gpu_tensor: torch.Tensor, pin_memory: bool) -> torch.Tensor:
    cpu_backup = torch.empty(
        gpu_tensor.shape, dtype=gpu_tensor.dtype, device="cpu", pin_memory=pin_memory
    )
    cpu_backup.copy_(gpu_tensor, non_blocking=pin_memory)
    return cpu_backup


def reload_tensor(cpu_backup: torch.Tensor, gpu_buffer: torch.Tensor) -> torch.Tensor:
    gpu_buffer.copy_(cpu_backup, non_blocking=cpu_backup.is_pinned())
    return gpu_buffer


class GPUTensorPool:
    """Recycles device buffers by (shape, dtype); reuse is decided on the host."""

    def __init__(self, device: torch.device):
        self.device = device
        self._free: Dict[Tuple[Tuple[int, ...], torch.dtype], List[torch.Tensor]] = defaultdict(list)

    def acquire(self, shape: torch.Size, dtype: torch.dtype) -> torch.Tensor:
        free = self._free[(tuple(shape), dtype)]
        if free:
            return free.pop()
        return torch.empty(shape, dtype=dtype, device=self.device)

    def release(self, tensor: torch.Tensor) -> None:
        self._free[(tuple(tensor.shape), tensor.dtype)].append(tensor)
