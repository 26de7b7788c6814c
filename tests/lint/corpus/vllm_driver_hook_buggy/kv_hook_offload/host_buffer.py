# SPDX-License-Identifier: Apache-2.0
import logging

from cuda.bindings import driver

from .cu import check

logger = logging.getLogger(__name__)


class PinnedBlockBuffer:
    """Page-locked host slab carved into fixed-size KV blocks."""

    def __init__(self, num_blocks: int, block_bytes: int):
        self.num_blocks = num_blocks
        self.block_bytes = block_bytes
        flags = driver.CU_MEMHOSTALLOC_PORTABLE | driver.CU_MEMHOSTALLOC_DEVICEMAP
        self._base = check(driver.cuMemHostAlloc(num_blocks * block_bytes, flags))
        self._free = list(range(num_blocks))
        logger.info("Pinned %d host blocks (%d bytes each)", num_blocks, block_bytes)

    def alloc(self, n: int) -> list[int]:
        if n > len(self._free):
            raise MemoryError("host KV buffer exhausted")
        blocks, self._free = self._free[:n], self._free[n:]
        return blocks

    def free(self, blocks: list[int]) -> None:
        self._free.extend(blocks)

    def ptr(self, block: int) -> driver.CUdeviceptr:
        return driver.CUdeviceptr(int(self._base) + block * self.block_bytes)
