"""Offloads evicted GPU blocks to the secondary (host) pool. Urgent evictions and
background write-backs use streams of different priority so that the former are not
queued behind the latter."""

from dataclasses import dataclass
from typing import Dict, List

import torch

from trt_offload.config import OffloadConfig, OffloadPriority


@dataclass
class OffloadBatch:
    priority: OffloadPriority
    gpu_blocks: List[int]
    host_blocks: List[int]


class OffloadManager:
    def __init__(self, gpu_pool: torch.Tensor, cfg: OffloadConfig):
        self.gpu_pool = gpu_pool
        self.host_pool = torch.empty((cfg.num_host_blocks,) + tuple(gpu_pool.shape[1:]),
                                     dtype=gpu_pool.dtype, pin_memory=True)
        self._streams: Dict[OffloadPriority, torch.cuda.Stream] = {
            p: torch.cuda.Stream(priority=v) for p, v in cfg.stream_priorities.items()
        }
        self._done: Dict[int, torch.cuda.Event] = {}

    def offload(self, batches: List[OffloadBatch]) -> None:
        if not batches:
            return
        compute = torch.cuda.current_stream()
        # order the transfers behind the forward that last wrote the blocks
        self._streams[batches[0].priority].wait_stream(compute)
        for batch in batches:
            stream = self._streams[batch.priority]
            with torch.cuda.stream(stream):
                self._copy_out(batch)
                done = stream.record_event()
            for h in batch.host_blocks:
                self._done[h] = done
            if batch.priority is OffloadPriority.URGENT:
                # these GPU blocks go to the next context request right away: its forward
                # must not overwrite them before they are read out
                compute.wait_event(done)

    def _copy_out(self, batch: OffloadBatch) -> None:
        for g, h in zip(batch.gpu_blocks, batch.host_blocks):
            # expect: KVG001
            self.host_pool[h].copy_(self.gpu_pool[g], non_blocking=True)

    def is_resident(self, host_block: int) -> bool:
        ev = self._done.get(host_block)
        return ev is not None and ev.query()
