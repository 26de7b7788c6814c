"""LMCache engine side of the SGLang integration: stores are chunked and handed to a small
thread pool so that the scheduler thread goes straight back to launching the next batch.

Bug: the store job orders the store stream behind ``torch.cuda.current_stream()`` *on the pool
thread*. That is the default stream; the SGLang worker runs its forward on its own
``forward_stream``, so the wait orders nothing and the gather can read KV the forward is still
writing."""

import functools
import hashlib
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List

import torch

from lmc_sgl.config import LMCacheEngineConfig
from lmc_sgl.gpu_connector import SGLangGPUConnector
from lmc_sgl.memory import MemoryObj, PinnedChunkAllocator


class LMCacheEngine:
    def __init__(self, config: LMCacheEngineConfig, connector: SGLangGPUConnector, allocator: PinnedChunkAllocator):
        self.config = config
        self.gpu_connector = connector
        self.allocator = allocator
        self.hot_cache: Dict[str, MemoryObj] = {}
        self._executor = ThreadPoolExecutor(max_workers=config.store_workers, thread_name_prefix="lmcache-store")
        self._inflight: List[Future] = []

    @staticmethod
    def _chunk_key(token_ids: List[int]) -> str:
        return hashlib.sha256(repr(token_ids).encode()).hexdigest()

    def store(self, token_ids: List[int], kv_indices: torch.Tensor, kv_pool) -> None:
        chunk = self.config.chunk_size
        for start in range(0, len(token_ids), chunk):
            end = min(start + chunk, len(token_ids))
            if end - start < chunk and not self.config.save_unfull_chunk:
                break
            key = self._chunk_key(token_ids[:end])
            if key in self.hot_cache:
                continue
            memory_obj = self.allocator.allocate(key, end - start)
            if memory_obj is None:
                break
            job = functools.partial(self._store_chunk, memory_obj, kv_pool, kv_indices[start:end])
            self._inflight.append(self._executor.submit(job))

    def _store_chunk(self, memory_obj: MemoryObj, kv_pool, kv_indices: torch.Tensor) -> None:
        self.gpu_connector.from_gpu(memory_obj, kv_pool.k_buffer, kv_pool.v_buffer, kv_indices)
        self.hot_cache[memory_obj.key] = memory_obj

    def flush(self) -> None:
        for fut in self._inflight:
            fut.result()
        self._inflight.clear()
