import threading
from dataclasses import dataclass
from enum import Enum, auto

import torch


class MemoryFormat(Enum):
    KV_2TD = auto()  # [2, num_tokens, hidden_dim]
    KV_T2D = auto()  # [num_tokens, 2, hidden_dim]


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    fmt: MemoryFormat = MemoryFormat.KV_2TD


class MemoryObj:
    def __init__(self, tensor: torch.Tensor, metadata: MemoryObjMetadata, allocator: "PinnedMemoryAllocator"):
        self.tensor = tensor
        self.metadata = metadata
        self._allocator = allocator
        self._ref_count = 1
        self._lock = threading.Lock()

    def get_size(self) -> int:
        return self.tensor.numel() * self.tensor.element_size()

    def ref_count_up(self) -> None:
        with self._lock:
            self._ref_count += 1

    def ref_count_down(self) -> None:
        with self._lock:
            self._ref_count -= 1
            if self._ref_count == 0:
                self._allocator.free(self)


class PinnedMemoryAllocator:
    """Hands out views of one large pinned buffer (first-fit, no compaction)."""

    def __init__(self, size: int):
        self.buffer = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        self._lock = threading.Lock()
        self._free: list[tuple[int, int]] = [(0, size)]

    def allocate(self, shape: tuple[int, ...], dtype: torch.dtype) -> MemoryObj | None:
        nbytes = torch.Size(shape).numel() * dtype.itemsize
        with self._lock:
            for i, (start, length) in enumerate(self._free):
                if length >= nbytes:
                    self._free[i] = (start + nbytes, length - nbytes)
                    view = self.buffer[start : start + nbytes].view(dtype).view(shape)
                    return MemoryObj(view, MemoryObjMetadata(torch.Size(shape), dtype), self)
        return None

    def free(self, obj: MemoryObj) -> None:
        start = obj.tensor.data_ptr() - self.buffer.data_ptr()
        with self._lock:
            self._free.append((start, obj.get_size()))
            self._free.sort()
