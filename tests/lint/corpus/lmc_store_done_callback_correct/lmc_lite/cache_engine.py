"""The cache engine the vLLM adapter drives: store() after a request's prefill."""

import functools
import hashlib
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import List

import torch

from lmc_lite.gpu_connector import VLLMPagedMemGPUConnector
from lmc_lite.memory import MemoryObj, PinnedMemoryAllocator
from lmc_lite.storage import StorageManager

logger = logging.getLogger(__name__)


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    num_layers: int = 32
    num_kv_heads: int = 8
    head_size: int = 128
    max_local_cpu_size_gb: float = 4.0
    local_disk: str = "/tmp/lmc_lite"
    store_workers: int = 2


class LMCacheEngine:

    def __init__(self, config: LMCacheEngineConfig):
        self.config = config
        hidden = config.num_kv_heads * config.head_size
        self.gpu_connector = VLLMPagedMemGPUConnector(hidden)
        self.allocator = PinnedMemoryAllocator(int(config.max_local_cpu_size_gb * (1 << 30)))
        self.storage_manager = StorageManager(config.local_disk)
        self._store_pool = ThreadPoolExecutor(max_workers=config.store_workers,
                                              thread_name_prefix="lmc-store")

    def _chunk_keys(self, tokens: torch.Tensor) -> List[str]:
        keys, prefix = [], hashlib.sha256()
        for start in range(0, len(tokens), self.config.chunk_size):
            prefix.update(tokens[start:start + self.config.chunk_size].numpy().tobytes())
            keys.append(prefix.hexdigest())
        return keys

    def store(self, tokens: torch.Tensor, kvcaches: List[torch.Tensor],
              slot_mapping: torch.Tensor) -> Future:
        """``tokens`` on the host; ``slot_mapping`` on the device."""
        cfg = self.config
        keys = self._chunk_keys(tokens)
        starts = list(range(0, len(tokens), cfg.chunk_size))
        ends = [min(s + cfg.chunk_size, len(tokens)) for s in starts]
        objs: List[MemoryObj] = []
        for start, end in zip(starts, ends):
            obj = self.allocator.allocate((2, cfg.num_layers, end - start, cfg.num_kv_heads * cfg.head_size),
                                          kvcaches[0].dtype)
            if obj is None:
                logger.warning("local CPU memory full, storing %d of %d chunks", len(objs), len(keys))
                break
            objs.append(obj)
        ready = torch.cuda.Event()
        ready.record()
        n = len(objs)
        future = self._store_pool.submit(self.gpu_connector.batched_from_gpu, objs, starts[:n], ends[:n],
                                         kvcaches=kvcaches, slot_mapping=slot_mapping, ready=ready)
        future.add_done_callback(functools.partial(self._on_stored, keys[:n], objs))
        return future

    def _on_stored(self, keys: List[str], objs: List[MemoryObj], future: Future) -> None:
        if future.exception() is not None:
            logger.error("store of %d chunks failed: %s", len(keys), future.exception())
            return
        self.storage_manager.batched_put(keys, objs)
