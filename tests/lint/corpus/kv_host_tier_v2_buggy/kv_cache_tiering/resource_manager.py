import functools
import logging
from concurrent.futures import Future
from typing import Dict, List

import torch

from . import cudart
from .block_pool import BlockPool
from .offload_manager import HostOffloadManager

logger = logging.getLogger(__name__)


class TieredKVCacheManager:
    """Keeps paused requests' KV on the host and brings it back when they resume."""

    def __init__(self, pool: BlockPool):
        self.pool = pool
        self.offloader = HostOffloadManager(pool)
        self.primary_blocks: Dict[int, List[int]] = {}
        self.secondary_blocks: Dict[int, List[int]] = {}

    def suspend_request(self, request_id: int) -> bool:
        primary_ids = self.primary_blocks.get(request_id)
        if not primary_ids:
            return False
        self.pool.release_secondary(self.secondary_blocks.pop(request_id, []))
        secondary_ids = self.pool.alloc_secondary(len(primary_ids))
        if secondary_ids is None:
            return False
        compute = torch.cuda.current_stream().cuda_stream
        future = self.offloader.offload_async(primary_ids, secondary_ids, compute)
        future.add_done_callback(functools.partial(self._on_offloaded, request_id, primary_ids))
        self.secondary_blocks[request_id] = secondary_ids
        del self.primary_blocks[request_id]
        return True

    def _on_offloaded(self, request_id: int, primary_ids: List[int], future: Future) -> None:
        if future.exception() is not None:
            logger.error("offload of request %d failed: %s", request_id, future.exception())
            return
        self.pool.release_primary(primary_ids)

    def prepare_resources(self, scheduled_request_ids: List[int]) -> None:
        host_ids: List[int] = []
        primary_ids: List[int] = []
        for rid in scheduled_request_ids:
            if rid in self.primary_blocks or rid not in self.secondary_blocks:
                continue
            ids = self.pool.alloc_primary(len(self.secondary_blocks[rid]))
            if ids is None:
                raise RuntimeError(f"no primary blocks left to resume request {rid}")
            self.primary_blocks[rid] = ids
            host_ids += self.secondary_blocks[rid]
            primary_ids += ids
        if not host_ids:
            return

        compute = torch.cuda.current_stream()
        done = self.offloader.onboard_async(host_ids, compute.cuda_stream).result()
        cudart.stream_wait_event(compute.cuda_stream, done)
        cudart.event_destroy(done)
        dst = torch.tensor(primary_ids, dtype=torch.int64).to(self.pool.primary.device)
        self.pool.primary.index_copy_(0, dst, self.pool.onboard_staging[: len(host_ids)])

    def free_resources(self, request_id: int) -> None:
        self.pool.release_primary(self.primary_blocks.pop(request_id, []))
        self.pool.release_secondary(self.secondary_blocks.pop(request_id, []))

    def shutdown(self) -> None:
        self.offloader.shutdown()
