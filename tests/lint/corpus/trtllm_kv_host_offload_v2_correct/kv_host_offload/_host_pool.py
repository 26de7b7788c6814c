# SPDX-License-Identifier: Apache-2.0
import threading

import cuda.bindings.driver as drv

from ._common import _unwrap


class HostBlockPool:
    """Page-locked host memory carved into fixed-size KV blocks."""

    def __init__(self, num_blocks: int, block_bytes: int):
        self.num_blocks = num_blocks
        self.block_bytes = block_bytes
        self._base = _unwrap(drv.cuMemHostAlloc(num_blocks * block_bytes, 0))
        self._free = list(range(num_blocks))
        self._lock = threading.Lock()

    def address(self, block_id: int) -> int:
        return int(self._base) + block_id * self.block_bytes

    def allocate(self) -> int:
        with self._lock:
            if not self._free:
                raise MemoryError("host KV block pool exhausted")
            return self._free.pop()

    def release(self, block_id: int) -> None:
        with self._lock:
            self._free.append(block_id)

    def close(self) -> None:
        _unwrap(drv.cuMemFreeHost(self._base))
