# SPDX-License-Identifier: Apache-2.0
import logging
import threading
from collections import OrderedDict
from typing import List, Optional, Sequence, Tuple

import torch

logger = logging.getLogger(__name__)

CacheKey = Tuple[str, int]


class MemoryObj:
    __slots__ = ("tensor", "ref_count", "_allocator")

    def __init__(self, tensor: torch.Tensor, allocator: "PinnedMemoryAllocator"):
        self.tensor = tensor
        self.ref_count = 1
        self._allocator = allocator

    @property
    def nbytes(self) -> int:
        return self.tensor.numel() * self.tensor.element_size()

    def ref_count_up(self) -> None:
        self.ref_count += 1

    def ref_count_down(self) -> None:
        self.ref_count -= 1
        if self.ref_count == 0:
            self._allocator.release(self)


class PinnedMemoryAllocator:
    def __init__(self, budget_bytes: int):
        self._budget = budget_bytes
        self._used = 0
        self._lock = threading.Lock()

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> Optional[MemoryObj]:
        itemsize = torch.empty((), dtype=dtype).element_size()
        nbytes = shape.numel() * itemsize
        with self._lock:
            if self._used + nbytes > self._budget:
                logger.warning("pinned pool full (%d / %d bytes)", self._used, self._budget)
                return None
            self._used += nbytes
        return MemoryObj(torch.empty(shape, dtype=dtype, pin_memory=True), self)

    def release(self, obj: MemoryObj) -> None:
        with self._lock:
            self._used -= obj.nbytes


class LocalCPUBackend:
    def __init__(self) -> None:
        self._hot: "OrderedDict[CacheKey, MemoryObj]" = OrderedDict()
        self._lock = threading.Lock()

    def contains(self, key: CacheKey) -> bool:
        with self._lock:
            return key in self._hot

    def batched_put(self, keys: Sequence[CacheKey], objs: List[MemoryObj]) -> None:
        with self._lock:
            for key, obj in zip(keys, objs):
                old = self._hot.pop(key, None)
                if old is not None:
                    old.ref_count_down()
                self._hot[key] = obj
