"""Bookkeeping attached to ZeRO-3 partitioned parameters."""
import itertools
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterator, Set

import torch

_ds_id_counter = itertools.count()


class ZeroParamStatus(Enum):
    # parameter is fully present and ready for use on all processes
    AVAILABLE = 1
    # parameter is either partitioned or remote
    NOT_AVAILABLE = 2
    # parameter is being gathered
    INFLIGHT = 3


@dataclass
class DsParamMeta:
    ds_id: int
    ds_shape: torch.Size
    ds_numel: int
    partition_numel: int
    offloaded: bool = False
    slot: int = -1
    active_sub_modules: Set[int] = field(default_factory=set)


@torch.no_grad()
def convert_to_zero_param(param: torch.nn.Parameter, rank: int, world_size: int, offload_param: bool) -> None:
    numel = param.numel()
    partition_numel = (numel + world_size - 1) // world_size
    padded = torch.zeros(partition_numel * world_size, dtype=param.dtype, device=param.device)
    padded.narrow(0, 0, numel).copy_(param.data.view(-1))
    shard = padded.narrow(0, rank * partition_numel, partition_numel).clone()
    if offload_param:
        # keep the partition in page-locked memory so it can be streamed back asynchronously
        shard = shard.cpu().pin_memory()
    param.ds_tensor = shard
    param.ds_meta = DsParamMeta(next(_ds_id_counter), param.shape, numel, partition_numel, offload_param)
    param.ds_status = ZeroParamStatus.NOT_AVAILABLE
    param.data = torch.empty(0, dtype=param.dtype, device=param.device)


def iter_params(module: torch.nn.Module, recurse: bool = False) -> Iterator[torch.nn.Parameter]:
    return (p for p in module.parameters(recurse=recurse) if hasattr(p, "ds_meta"))
