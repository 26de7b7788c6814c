import logging
import threading

import numpy as np
from numba import cuda

from .config import MAX_THREADS_PER_BLOCK, SpillConfig
from .kernels import write_kv
from .spill import SpillRequest, SpillThread
from .streams import StreamBundle, fence

logger = logging.getLogger(__name__)


class KVRunner:
    def __init__(self, cfg: SpillConfig) -> None:
        self.cfg = cfg
        self.streams = StreamBundle()
        self.d_cache = cuda.device_array(
            (cfg.num_gpu_blocks, cfg.block_elems), dtype=cfg.dtype)
        self.h_cache = cuda.pinned_array(
            (cfg.num_host_blocks, cfg.block_elems), dtype=cfg.dtype)
        self._free_blocks = set(range(cfg.num_gpu_blocks))
        self._lock = threading.Lock()
        self.spiller = SpillThread(
            self.d_cache, self.h_cache, self.streams, cfg.spill_dir,
            on_released=self._release, depth=cfg.queue_depth)
        self.spiller.start()

    def _release(self, block_ids: list[int]) -> None:
        with self._lock:
            self._free_blocks.update(block_ids)

    def allocate(self, n: int) -> list[int]:
        with self._lock:
            if len(self._free_blocks) < n:
                raise RuntimeError(f"out of KV blocks ({n} requested)")
            return [self._free_blocks.pop() for _ in range(n)]

    def _write(self, slot_mapping: np.ndarray, kv) -> None:
        stream = self.streams.compute
        d_slots = cuda.to_device(slot_mapping.astype(np.int64), stream=stream)
        threads = min(MAX_THREADS_PER_BLOCK, kv.shape[1])
        write_kv[kv.shape[0], threads, stream](self.d_cache, d_slots, kv)

    def prefill(self, slot_mapping: np.ndarray, kv,
                evict: list[tuple[int, int]]) -> None:
        self._write(slot_mapping, kv)
        if evict:
            logger.debug("prefill evicts %d blocks", len(evict))
            self.spiller.submit(
                SpillRequest(evict, ready=fence(self.streams.compute)))

    def decode(self, slot_mapping: np.ndarray, kv,
               evict: list[tuple[int, int]]) -> None:
        self._write(slot_mapping, kv)
        if evict:
            self.spiller.submit(
                SpillRequest(evict, ready=fence(self.streams.compute)))
