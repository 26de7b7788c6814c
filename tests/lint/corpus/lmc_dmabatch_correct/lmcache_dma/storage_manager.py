# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, Optional
import logging
import zlib

# Third Party
from cuda.bindings import driver
import torch

# First Party
from lmcache_dma.constants import DEFAULT_STORE_WORKERS
from lmcache_dma.cuda_utils import checkCudaErrors
from lmcache_dma.dma_connector import DMABatchGPUConnector, MemoryObj

logger = logging.getLogger(__name__)


class StorageManager:
    def __init__(self, connector: DMABatchGPUConnector, hidden: int, dtype: torch.dtype):
        self.connector = connector
        self.hidden = hidden
        self.dtype = dtype
        self.hot_cache: Dict[str, MemoryObj] = {}
        self.checksums: Dict[str, int] = {}
        self._executor = ThreadPoolExecutor(
            max_workers=DEFAULT_STORE_WORKERS, thread_name_prefix="lmc-dma-store"
        )

    def _allocate(self, num_tokens: int) -> MemoryObj:
        shape = (self.connector.num_layers, 2, num_tokens, self.hidden)
        return MemoryObj(torch.empty(shape, dtype=self.dtype, pin_memory=True))

    def store(
        self,
        keys: List[str],
        slot_starts: List[int],
        num_tokens: List[int],
        blocking: bool = False,
    ) -> Optional[Future]:
        memory_objs = [self._allocate(n) for n in num_tokens]
        compute_stream = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        if blocking:
            self.connector.flush_from_gpu(memory_objs, slot_starts, num_tokens, compute_stream)
            self._commit(keys, memory_objs)
            return None
        return self._executor.submit(
            self._store_task, keys, memory_objs, slot_starts, num_tokens, compute_stream
        )

    def _store_task(self, keys, memory_objs, slot_starts, num_tokens, compute_stream) -> None:
        done = self.connector.from_gpu(memory_objs, slot_starts, num_tokens, compute_stream)
        checkCudaErrors(driver.cuEventSynchronize(done))
        checkCudaErrors(driver.cuEventDestroy(done))
        self._commit(keys, memory_objs)

    def _commit(self, keys: List[str], memory_objs: List[MemoryObj]) -> None:
        for key, obj in zip(keys, memory_objs):
            self.checksums[key] = zlib.crc32(obj.tensor.view(torch.uint8).numpy())
            self.hot_cache[key] = obj
        logger.debug("Committed %d chunks", len(keys))

    def close(self) -> None:
        self._executor.shutdown(wait=True)
