import ctypes
import logging
import queue
from typing import List, Optional

from disagg import cudart

logger = logging.getLogger(__name__)


class CacheTransBufferManager:
    """Fixed set of pinned staging buffers used to ship context KV blocks to generation ranks."""

    def __init__(self, buffer_bytes: int, num_buffers: int = 2):
        self.buffer_bytes = buffer_bytes
        self._ptrs: List[int] = [cudart.host_alloc(buffer_bytes) for _ in range(num_buffers)]
        self._free: "queue.Queue[int]" = queue.Queue()
        for idx in range(num_buffers):
            self._free.put(idx)
        logger.info("[TRT-LLM] [I] CacheTransBufferManager: %d x %d bytes pinned", num_buffers, buffer_bytes)

    @property
    def num_buffers(self) -> int:
        return len(self._ptrs)

    def assign_buffer_index(self, timeout: Optional[float] = None) -> int:
        return self._free.get(timeout=timeout)

    def free_buffer_index(self, idx: int) -> None:
        self._free.put(idx)

    def buffer_ptr(self, idx: int) -> int:
        return self._ptrs[idx]

    def view(self, idx: int, nbytes: int) -> memoryview:
        assert nbytes <= self.buffer_bytes
        return memoryview((ctypes.c_char * nbytes).from_address(self._ptrs[idx])).cast("B")
