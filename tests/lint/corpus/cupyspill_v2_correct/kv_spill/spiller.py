import logging
from typing import Dict, Hashable, Optional

import cupy

from kv_spill.config import SPILL_LOGGER_NAME, SpillConfig
from kv_spill.index import SpillIndex
from kv_spill.pinned import PinnedHostPool

logger = logging.getLogger(SPILL_LOGGER_NAME)


class ChunkSpiller:
    """Moves cold KV chunks from device memory into pinned host memory."""

    def __init__(self, config: SpillConfig):
        self.config = config
        with cupy.cuda.Device(config.device_id):
            self._d2h_stream = cupy.cuda.Stream(non_blocking=True)
        self.pool = PinnedHostPool(config.pinned_pool_bytes)
        self.index = SpillIndex(config.verify_checksum)
        self._pending: Dict[Hashable, cupy.ndarray] = {}

    def reap(self) -> int:
        released = 0
        while not self.index.completed.empty():
            key = self.index.completed.get_nowait()
            if self._pending.pop(key, None) is not None:
                released += 1
        return released

    def spill(self, key: Hashable, chunk: cupy.ndarray) -> None:
        self.reap()
        if len(self.index) + len(self._pending) >= self.config.max_entries:
            raise RuntimeError("spill index full")
        producer = cupy.cuda.get_current_stream()
        ready = producer.record()
        self._d2h_stream.wait_event(ready)

        host = self.pool.empty(chunk.shape, chunk.dtype)
        chunk.get(stream=self._d2h_stream, out=host, blocking=False)
        self._pending[key] = chunk
        self._d2h_stream.launch_host_func(self.index.on_spilled, (key, host))
        logger.debug("spilling %s (%d bytes)", key, chunk.nbytes)

    def restore(self, key: Hashable) -> Optional[cupy.ndarray]:
        entry = self.index.pop(key)
        if entry is None:
            return None
        device_chunk = cupy.asarray(entry.host)
        cupy.cuda.get_current_stream().launch_host_func(self._return_host, entry.host)
        return device_chunk

    def _return_host(self, host) -> None:
        self.pool.give_back(host)
