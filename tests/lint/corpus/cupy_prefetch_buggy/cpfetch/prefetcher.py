import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import cupy
import numpy as np

from .blocks import load_blocks, store_blocks
from .constants import PREFETCH_WORKERS, STAGING_SLOTS
from .streams import DeviceStreams, pinned_blocks

logger = logging.getLogger(__name__)


class BlockPrefetcher:
    def __init__(self, gpu_cache: cupy.ndarray, host_cache: np.ndarray,
                 tier: dict[bytes, np.ndarray], streams: DeviceStreams) -> None:
        self.gpu_cache = gpu_cache
        self.host_cache = host_cache
        self.tier = tier
        self.streams = streams
        self.staging = pinned_blocks(
            STAGING_SLOTS, gpu_cache.shape[1:], gpu_cache.dtype)
        self._free = list(range(STAGING_SLOTS))
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(
            max_workers=PREFETCH_WORKERS, thread_name_prefix="kv-prefetch")

    def store(self, pairs: list[tuple[int, int]],
              after: cupy.cuda.Event) -> cupy.cuda.Event:
        self.streams.d2h.wait_event(after)
        with self.streams.d2h:
            store_blocks(self.gpu_cache, pairs, self.host_cache, self.streams.d2h)
            done = self.streams.d2h.record()
        self.streams.main.wait_event(done)
        return done

    def load(self, block_ids: list[int], keys: list[bytes],
             after: cupy.cuda.Event | None = None) -> Future:
        return self._executor.submit(self._load_job, block_ids, keys, after)

    def _load_job(self, block_ids: list[int], keys: list[bytes],
                  after: cupy.cuda.Event | None) -> list[int]:
        with self._lock:
            slots, self._free = self._free[:len(keys)], self._free[len(keys):]
        try:
            for slot, key in zip(slots, keys):
                np.copyto(self.staging[slot], self.tier[key])
            with self.streams.device:
                if after is not None:
                    self.streams.h2d.wait_event(after)
                with self.streams.h2d:
                    load_blocks(self.gpu_cache, zip(block_ids, slots),
                                self.staging, self.streams.h2d)
                    done = self.streams.h2d.record()
                done.synchronize()
        finally:
            with self._lock:
                self._free.extend(slots)
        logger.debug("prefetched %d blocks", len(block_ids))
        return block_ids

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
