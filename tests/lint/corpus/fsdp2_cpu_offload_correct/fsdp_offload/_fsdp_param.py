from __future__ import annotations

import math
from enum import Enum, auto

import torch
import torch.distributed as dist
import torch.nn as nn


class ShardedState(Enum):
    SHARDED = auto()
    UNSHARDED = auto()
    OFFLOADED = auto()


def _free_storage(tensor: torch.Tensor) -> None:
    if tensor.untyped_storage().size() != 0:
        tensor.untyped_storage().resize_(0)


def _alloc_storage(tensor: torch.Tensor) -> None:
    nbytes = tensor.numel() * tensor.element_size()
    if tensor.untyped_storage().size() != nbytes:
        tensor.untyped_storage().resize_(nbytes)


class FSDPParam:
    """One original parameter, flattened and sharded along dim 0 across the group."""

    def __init__(self, module: nn.Module, param_name: str, fqn: str, device: torch.device,
                 rank: int, world_size: int, pin_memory: bool) -> None:
        param = getattr(module, param_name)
        self._module_info = (module, param_name)
        self.fqn = fqn
        self.device = device
        self.rank = rank
        self.world_size = world_size
        self.orig_size = param.size()
        self.numel = param.numel()
        self.chunk = math.ceil(self.numel / world_size)

        padded = torch.zeros(self.chunk * world_size, dtype=param.dtype, device=device)
        padded[: self.numel].copy_(param.detach().reshape(-1))
        self.sharded_data = padded.narrow(0, rank * self.chunk, self.chunk).clone()
        self.cpu_shard = torch.empty(self.chunk, dtype=param.dtype, pin_memory=pin_memory)
        self._unsharded_flat = padded
        self._unsharded_param = nn.Parameter(padded[: self.numel].view(self.orig_size), param.requires_grad)
        _free_storage(self._unsharded_flat)
        module._parameters[param_name] = self._unsharded_param
        self.state = ShardedState.SHARDED

    def unshard(self, group: dist.ProcessGroup | None) -> None:
        _alloc_storage(self._unsharded_flat)
        dist.all_gather_into_tensor(self._unsharded_flat, self.sharded_data, group=group)
        self.state = ShardedState.UNSHARDED

    def reshard(self) -> None:
        # fold in-place updates made during forward (parametrizations, weight norm) back into the shard
        self.sharded_data.copy_(self._unsharded_flat.narrow(0, self.rank * self.chunk, self.chunk))
        _free_storage(self._unsharded_flat)
        self.state = ShardedState.SHARDED

    def offload_to_cpu(self) -> None:
        self.cpu_shard.copy_(self.sharded_data, non_blocking=True)

    def release_device_shard(self, used_on: torch.cuda.Stream) -> None:
        self.sharded_data.record_stream(used_on)
        self.sharded_data = None
        self.state = ShardedState.OFFLOADED

    def reload_to_device(self) -> None:
        self.sharded_data = self.cpu_shard.to(self.device, non_blocking=True)
        self.state = ShardedState.SHARDED
