import logging
from typing import List, Tuple

import cupy

from lmc_cupy.config import LMCacheConfig
from lmc_cupy.gpu_connector import CupyPagedGPUConnector
from lmc_cupy.local_disk_backend import LocalDiskBackend
from lmc_cupy.memory import PinnedBufferPool, PinnedMemoryObj

logger = logging.getLogger(__name__)


class LMCacheEngine:
    def __init__(self, config: LMCacheConfig, kv_layers: List[cupy.ndarray], compute_stream: cupy.cuda.Stream):
        block_shape = kv_layers[0].shape[1:]
        chunk_shape = (len(kv_layers), config.chunk_blocks, *block_shape)
        self.pool = PinnedBufferPool(chunk_shape, kv_layers[0].dtype, config.num_pinned_buffers)
        self.connector = CupyPagedGPUConnector(kv_layers, compute_stream)
        self.backend = LocalDiskBackend(config, self.pool)
        self.inflight_loads: List[Tuple[cupy.cuda.Event, PinnedMemoryObj]] = []

    def store(self, key: str, block_ids: List[int]) -> bool:
        if self.backend.contains(key):
            return True
        memory_obj = self.pool.allocate()
        if memory_obj is None:
            logger.warning("No pinned buffer left, skip storing %s", key)
            return False
        self.connector.from_gpu(memory_obj, block_ids)
        self.backend.submit_put_task(key, memory_obj)
        return True

    def retrieve(self, key: str, block_ids: List[int]) -> bool:
        memory_obj = self.backend.get_blocking(key)
        if memory_obj is None:
            return False
        loaded = self.connector.to_gpu(memory_obj, block_ids)
        self.inflight_loads.append((loaded, memory_obj))
        return True

    def reclaim(self) -> None:
        still = []
        for event, obj in self.inflight_loads:
            if event.done:
                self.pool.release(obj)
            else:
                still.append((event, obj))
        self.inflight_loads = still
