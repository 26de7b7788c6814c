"""A slab allocator over one raw cudaHostAlloc region.

MemoryObj is a thin record (address, size, shape, dtype); tensors and byte
views are built on demand over the raw pinned pointer.
"""

import ctypes
import threading
from typing import List, Optional

import torch
from cuda.bindings import runtime as cudart


def _rt_check(result):
    if result[0] != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error {result[0]}")
    return result[1:]


class MemoryObj:
    def __init__(self, address: int, size: int, shape: torch.Size, dtype: torch.dtype, allocator):
        self.address = address
        self.size = size
        self.shape = shape
        self.dtype = dtype
        self.ref_count = 1
        self._allocator = allocator
        self._lock = threading.Lock()

    @property
    def byte_array(self) -> memoryview:
        return memoryview((ctypes.c_ubyte * self.size).from_address(self.address))

    @property
    def tensor(self) -> torch.Tensor:
        return torch.frombuffer(self.byte_array, dtype=self.dtype).view(self.shape)

    def ref_count_up(self) -> None:
        with self._lock:
            self.ref_count += 1

    def ref_count_down(self) -> None:
        with self._lock:
            self.ref_count -= 1
            last = self.ref_count == 0
        if last:
            self._allocator.free(self)


class PinnedCPUAllocator:
    def __init__(self, total_bytes: int, slab_bytes: int):
        (ptr,) = _rt_check(cudart.cudaHostAlloc(total_bytes, cudart.cudaHostAllocPortable))
        self.base = int(ptr)
        self.slab_bytes = slab_bytes
        self._free: List[int] = [self.base + off for off in range(0, total_bytes - slab_bytes + 1, slab_bytes)]
        self._lock = threading.Lock()

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> Optional[MemoryObj]:
        size = shape.numel() * torch.empty((), dtype=dtype).element_size()
        assert size <= self.slab_bytes
        with self._lock:
            if not self._free:
                return None
            address = self._free.pop()
        return MemoryObj(address, size, shape, dtype, self)

    def free(self, obj: MemoryObj) -> None:
        with self._lock:
            self._free.append(obj.address)
