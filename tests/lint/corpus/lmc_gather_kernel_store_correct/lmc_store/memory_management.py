"""Memory objects in the shape of LMCache's: one pinned pool, handed out as views with metadata."""

import threading
from dataclasses import dataclass
from enum import Enum, auto
from typing import List, Optional, Tuple

import torch


class MemoryFormat(Enum):
    UNDEFINED = 0
    KV_2LTD = auto()  # [2, num_layers, num_tokens, hidden_dim]


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    address: int
    phy_size: int
    ref_count: int = 1
    fmt: MemoryFormat = MemoryFormat.UNDEFINED


class TensorMemoryObj:
    def __init__(self, raw_data: torch.Tensor, metadata: MemoryObjMetadata, allocator: "PinMemoryAllocator"):
        self.raw_data = raw_data
        self.metadata = metadata
        self.allocator = allocator

    @property
    def tensor(self) -> Optional[torch.Tensor]:
        return self.raw_data.view(self.metadata.dtype).view(self.metadata.shape)

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.raw_data.numpy())

    def ref_count_up(self) -> None:
        self.metadata.ref_count += 1

    def ref_count_down(self) -> None:
        self.metadata.ref_count -= 1
        if self.metadata.ref_count == 0:
            self.allocator.free(self)


class PinMemoryAllocator:
    """First-fit allocator over a single pinned buffer."""

    ALIGN = 4096

    def __init__(self, size: int):
        self.buffer = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        self.free_blocks: List[Tuple[int, int]] = [(0, size)]
        self.lock = threading.Lock()

    def allocate(self, shape, dtype: torch.dtype, fmt: MemoryFormat = MemoryFormat.KV_2LTD) -> Optional[TensorMemoryObj]:
        shape = torch.Size(shape)
        nbytes = shape.numel() * torch.tensor([], dtype=dtype).element_size()
        size = (nbytes + self.ALIGN - 1) // self.ALIGN * self.ALIGN
        with self.lock:
            for i, (start, length) in enumerate(self.free_blocks):
                if length >= size:
                    if length == size:
                        self.free_blocks.pop(i)
                    else:
                        self.free_blocks[i] = (start + size, length - size)
                    raw = self.buffer[start : start + nbytes]
                    return TensorMemoryObj(raw, MemoryObjMetadata(shape, dtype, start, size, fmt=fmt), self)
        return None

    def free(self, obj: TensorMemoryObj) -> None:
        with self.lock:
            self.free_blocks.append((obj.metadata.address, obj.metadata.phy_size))
            self.free_blocks.sort()
