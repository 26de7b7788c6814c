import logging
from dataclasses import dataclass

import torch
from cuda.bindings import driver as drv

from kv_cache_manager_v2._common import CacheLevel, CopyTask, _check
from kv_cache_manager_v2._copy_engine import batched_copy
from kv_cache_manager_v2._cuda_utils import create_event, create_stream, current_torch_stream
from kv_cache_manager_v2._eviction import LRUEvictor

logger = logging.getLogger(__name__)


@dataclass
class KVCacheManagerConfig:
    num_gpu_blocks: int
    num_host_blocks: int
    block_bytes: int
    device_id: int = 0


class KVCacheManager:
    def __init__(self, config: KVCacheManagerConfig):
        self.config = config
        self.block_bytes = config.block_bytes
        self._gpu_pool = torch.empty(
            (config.num_gpu_blocks, config.block_bytes), dtype=torch.uint8, device=f"cuda:{config.device_id}"
        )
        self._host_pool = torch.empty((config.num_host_blocks, config.block_bytes), dtype=torch.uint8, pin_memory=True)
        self._free_gpu = list(range(config.num_gpu_blocks))
        self._free_host = list(range(config.num_host_blocks))
        self._gpu_to_host: dict[int, int] = {}
        self._transfer_stream = create_stream()
        self._compute_ready = create_event()
        self._transfer_done = create_event()
        self._evictor = LRUEvictor()
        self._evictor.set_eviction_callback(self._offload_to_host)

    def _gpu_addr(self, block: int) -> int:
        return self._gpu_pool.data_ptr() + block * self.block_bytes

    def _host_addr(self, block: int) -> int:
        return self._host_pool.data_ptr() + block * self.block_bytes

    def _compute_ready_event(self) -> drv.CUevent:
        _check(drv.cuEventRecord(self._compute_ready, current_torch_stream()))
        return self._compute_ready

    def _join_compute_stream(self) -> None:
        _check(drv.cuEventRecord(self._transfer_done, self._transfer_stream))
        _check(drv.cuStreamWaitEvent(current_torch_stream(), self._transfer_done, 0))

    def _offload_to_host(self, gpu_blocks: list[int]) -> list[int]:
        host_blocks = [self._free_host.pop() for _ in gpu_blocks[: len(self._free_host)]]
        tasks = [CopyTask(dst=self._host_addr(h), src=self._gpu_addr(g)) for g, h in zip(gpu_blocks, host_blocks)]
        batched_copy(
            CacheLevel.HOST_MEMORY, CacheLevel.GPU_MEMORY, self.block_bytes, tasks,
            self._transfer_stream, wait_event=self._compute_ready_event(),
        )
        self._join_compute_stream()
        for g, h in zip(gpu_blocks, host_blocks):
            self._gpu_to_host[g] = h
        logger.debug("Offloaded %d blocks to host", len(host_blocks))
        return gpu_blocks

    def allocate_gpu_blocks(self, num_blocks: int) -> list[int]:
        if len(self._free_gpu) < num_blocks:
            self._free_gpu.extend(self._evictor.evict(num_blocks - len(self._free_gpu)))
        blocks = [self._free_gpu.pop() for _ in range(num_blocks)]
        for b in blocks:
            self._evictor.touch(b)
        return blocks

    def onboard(self, host_blocks: list[int]) -> list[int]:
        gpu_blocks = self.allocate_gpu_blocks(len(host_blocks))
        tasks = [CopyTask(dst=self._gpu_addr(g), src=self._host_addr(h)) for h, g in zip(host_blocks, gpu_blocks)]
        batched_copy(
            CacheLevel.GPU_MEMORY, CacheLevel.HOST_MEMORY, self.block_bytes, tasks,
            self._transfer_stream, wait_event=self._compute_ready_event(),
        )
        self._join_compute_stream()
        self._free_host.extend(host_blocks)
        return gpu_blocks
