"""Implement tensor computations with pytorch."""
from enum import Enum, auto
from typing import Optional, Tuple

import torch


class DeviceType(Enum):
    CPU = auto()
    CUDA = auto()


class TorchDevice:
    """Wrap tensor and computation APIs of a single CPU or GPU."""

    def __init__(self, name: str):
        self.name = name
        self.dev = torch.device(name)
        self.device_type = DeviceType.CUDA if self.dev.type == "cuda" else DeviceType.CPU

    def allocate(self, shape, dtype, pin_memory: Optional[bool] = None) -> torch.Tensor:
        if self.device_type == DeviceType.CPU:
            pin_memory = True if pin_memory is None else pin_memory
        else:
            pin_memory = False
        return torch.empty(shape, dtype=dtype, pin_memory=pin_memory, device=self.dev)

    def init_cache_one_gpu_batch(self, config, task, policy) -> Tuple[torch.Tensor, torch.Tensor]:
        shape = (task.prompt_len + task.gen_len - 1, policy.gpu_batch_size * config.n_head, config.head_dim)
        pin = policy.pin_cache if self.device_type == DeviceType.CPU else None
        return self.allocate(shape, config.dtype, pin), self.allocate(shape, config.dtype, pin)


def general_copy(dst: torch.Tensor, dst_indices, src: torch.Tensor, src_indices):
    """Launch a general asynchronous copy between two tensors."""
    if dst_indices:
        dst = dst[dst_indices]
    if src_indices:
        src = src[src_indices]
    # expect: KVG001
    dst.copy_(src, non_blocking=True)
