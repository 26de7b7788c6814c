"""Gathers partitioned parameters ahead of the sub-module that uses them."""
import logging
from collections import deque
from typing import Deque, Dict, List, Tuple

import torch
import torch.distributed as dist

from .partition_parameters import ZeroParamStatus, iter_params

logger = logging.getLogger(__name__)


class _GatherBufferPool:
    """Fixed set of flat gather buffers, recycled between sub-modules."""

    def __init__(self, num_buffers: int, buffer_numel: int, dtype: torch.dtype, device: torch.device):
        self.buffer_numel = buffer_numel
        self._buffers = [torch.empty(buffer_numel, dtype=dtype, device=device) for _ in range(num_buffers)]
        self._free: Deque[int] = deque(range(num_buffers))

    def acquire(self, numel: int) -> Tuple[int, torch.Tensor]:
        if numel > self.buffer_numel:
            raise RuntimeError(f"parameter of {numel} elements exceeds gather buffer of {self.buffer_numel}")
        if not self._free:
            raise RuntimeError("gather buffers exhausted, raise stage3_max_live_parameters")
        slot = self._free.popleft()
        return slot, self._buffers[slot].narrow(0, 0, numel)

    def release(self, slot: int) -> None:
        self._free.append(slot)


class PartitionedParameterCoordinator:

    def __init__(self, max_live_parameters: int, max_param_numel: int, dtype: torch.dtype = torch.float16,
                 process_group=None):
        self._pg = process_group
        self._world_size = dist.get_world_size(process_group)
        self._rank = dist.get_rank(process_group)
        device = torch.device("cuda", torch.cuda.current_device())
        self._allgather_stream = torch.cuda.Stream(device=device)
        self._h2d_stream = torch.cuda.Stream(device=device)
        self._pool = _GatherBufferPool(max_live_parameters, max_param_numel * self._world_size, dtype, device)
        self._inflight: Dict[int, torch.cuda.Event] = {}

    @torch.no_grad()
    def fetch_sub_module(self, sub_module: torch.nn.Module) -> None:
        params = [p for p in iter_params(sub_module) if p.ds_status == ZeroParamStatus.NOT_AVAILABLE]
        if params:
            # gather buffers are recycled from sub-modules that may still be running on the compute stream
            self._allgather_stream.wait_stream(torch.cuda.current_stream())
            self.__all_gather_params(params)
        compute_stream = torch.cuda.current_stream()
        for param in iter_params(sub_module):
            event = self._inflight.pop(param.ds_meta.ds_id, None)
            if event is not None:
                compute_stream.wait_event(event)
                param.ds_status = ZeroParamStatus.AVAILABLE
            param.ds_meta.active_sub_modules.add(id(sub_module))

    @torch.no_grad()
    def release_sub_module(self, sub_module: torch.nn.Module) -> None:
        for param in iter_params(sub_module):
            meta = param.ds_meta
            meta.active_sub_modules.discard(id(sub_module))
            if meta.active_sub_modules or param.ds_status != ZeroParamStatus.AVAILABLE:
                continue
            param.data = torch.empty(0, dtype=param.dtype, device=param.device)
            self._pool.release(meta.slot)
            meta.slot = -1
            param.ds_status = ZeroParamStatus.NOT_AVAILABLE

    def __all_gather_params(self, params: List[torch.nn.Parameter]) -> None:
        for param in params:
            meta = param.ds_meta
            meta.slot, flat = self._pool.acquire(meta.partition_numel * self._world_size)
            local_shard = flat.narrow(0, self._rank * meta.partition_numel, meta.partition_numel)
            if meta.offloaded:
                with torch.cuda.stream(self._h2d_stream):
                    # expect: KVG004
                    local_shard.copy_(param.ds_tensor, non_blocking=True)
                self._allgather_stream.wait_stream(self._h2d_stream)
            with torch.cuda.stream(self._allgather_stream):
                if not meta.offloaded:
                    local_shard.copy_(param.ds_tensor)
                dist.all_gather_into_tensor(flat, local_shard, group=self._pg)
                gathered = torch.cuda.Event()
                gathered.record()
            self._inflight[meta.ds_id] = gathered
            param.data = flat.narrow(0, 0, meta.ds_numel).view(meta.ds_shape)
            param.ds_status = ZeroParamStatus.INFLIGHT
            logger.debug("all-gather issued for param %d (%d elems)", meta.ds_id, meta.ds_numel)
