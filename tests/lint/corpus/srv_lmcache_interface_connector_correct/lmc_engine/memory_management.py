# SPDX-License-Identifier: Apache-2.0
"""Pinned host memory allocator handing out reference-counted memory objects."""

from dataclasses import dataclass
from typing import List, Optional, Tuple
import logging
import threading

import torch

logger = logging.getLogger(__name__)


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    address: int
    phy_size: int
    ref_count: int = 1


class MemoryObj:
    def __init__(self, raw: torch.Tensor, metadata: MemoryObjMetadata, allocator: "PinnedMemoryAllocator"):
        self.raw = raw
        self.meta = metadata
        self._allocator = allocator

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw.view(self.meta.dtype).view(self.meta.shape)

    @property
    def byte_size(self) -> int:
        return self.meta.phy_size

    def ref_count_up(self) -> None:
        self.meta.ref_count += 1

    def ref_count_down(self) -> None:
        self.meta.ref_count -= 1
        if self.meta.ref_count == 0:
            self._allocator.free(self)


class PinnedMemoryAllocator:
    """Bump allocator over a single pinned buffer with a simple free list."""

    ALIGN = 4096

    def __init__(self, size_bytes: int):
        self.buffer = torch.empty(size_bytes, dtype=torch.uint8, pin_memory=True)
        self._free: List[Tuple[int, int]] = [(0, size_bytes)]
        self._lock = threading.Lock()
        logger.info("pinned allocator: %.1f MiB", size_bytes / 2**20)

    def allocate(self, shape, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = torch.Size(shape).numel() * dtype.itemsize
        phy = (nbytes + self.ALIGN - 1) // self.ALIGN * self.ALIGN
        with self._lock:
            for i, (start, length) in enumerate(self._free):
                if length >= phy:
                    if length == phy:
                        self._free.pop(i)
                    else:
                        self._free[i] = (start + phy, length - phy)
                    raw = self.buffer[start : start + nbytes]
                    return MemoryObj(raw, MemoryObjMetadata(torch.Size(shape), dtype, start, phy), self)
        logger.warning("pinned allocator out of memory (%d bytes requested)", phy)
        return None

    def free(self, obj: MemoryObj) -> None:
        with self._lock:
            self._free.append((obj.meta.address, obj.meta.phy_size))
            self._free.sort()
