# SPDX-License-Identifier: Apache-2.0
import ctypes
from typing import Sequence

from ._cudart import check, cudaMemcpyAttributes, cudart
from .constants import cudaMemLocationTypeDevice, cudaMemLocationTypeHost


class CacheFormatter:
    """Packs the KV blocks of one request into a contiguous host staging area."""

    def __init__(self, block_bytes: int, src_access_order: int, device_id: int):
        self.block_bytes = block_bytes
        self._attrs = cudaMemcpyAttributes()
        self._attrs.srcAccessOrder = src_access_order
        self._attrs.srcLocHint.type = cudaMemLocationTypeDevice
        self._attrs.srcLocHint.id = device_id
        self._attrs.dstLocHint.type = cudaMemLocationTypeHost
        self._attr_idx = ctypes.c_size_t(0)

    def stage_blocks(
        self, block_ptrs: Sequence[int], staging_ptr: int, stream: ctypes.c_void_p
    ) -> int:
        count = len(block_ptrs)
        if count == 0:
            return 0
        dsts = (ctypes.c_void_p * count)(
            *[staging_ptr + i * self.block_bytes for i in range(count)]
        )
        srcs = (ctypes.c_void_p * count)(*block_ptrs)
        sizes = (ctypes.c_size_t * count)(*([self.block_bytes] * count))
        fail_idx = ctypes.c_size_t(0)
        err = cudart().cudaMemcpyBatchAsync(
            dsts,
            srcs,
            sizes,
            count,
            ctypes.byref(self._attrs),
            ctypes.byref(self._attr_idx),
            1,
            ctypes.byref(fail_idx),
            stream,
        )
        check(err, f"cudaMemcpyBatchAsync (failIdx={fail_idx.value})")
        return count * self.block_bytes
