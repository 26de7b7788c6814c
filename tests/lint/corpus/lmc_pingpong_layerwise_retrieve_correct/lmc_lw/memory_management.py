"""Memory objects over one preallocated pool, in the shape of LMCache's MemoryObj allocators:
a pinned pool for the CPU tier and a device pool for the connector's staging buffers."""

from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    address: int
    phy_size: int
    old_positions: Optional[torch.Tensor] = None


class MemoryObj:
    def __init__(self, raw_data: torch.Tensor, metadata: MemoryObjMetadata, allocator: "BufferAllocator"):
        self.raw_data = raw_data
        self.metadata = metadata
        self.allocator = allocator

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw_data.view(self.metadata.dtype).view(self.metadata.shape)

    def ref_count_down(self) -> None:
        self.allocator.free(self)


class BufferAllocator:
    """Bump allocator with a free list over one byte buffer."""

    def __init__(self, buffer: torch.Tensor):
        self.buffer = buffer
        self.free_blocks: List[Tuple[int, int]] = [(0, buffer.numel())]

    def allocate(self, shape, dtype: torch.dtype) -> Optional[MemoryObj]:
        shape = torch.Size(shape)
        size = shape.numel() * torch.tensor([], dtype=dtype).element_size()
        for i, (start, length) in enumerate(self.free_blocks):
            if length >= size:
                self.free_blocks[i] = (start + size, length - size)
                raw = self.buffer[start : start + size]
                return MemoryObj(raw, MemoryObjMetadata(shape, dtype, start, size), self)
        return None

    def free(self, obj: MemoryObj) -> None:
        self.free_blocks.append((obj.metadata.address, obj.metadata.phy_size))
        self.free_blocks.sort()
        merged: List[Tuple[int, int]] = []
        for start, length in self.free_blocks:
            if merged and merged[-1][0] + merged[-1][1] == start:
                merged[-1] = (merged[-1][0], merged[-1][1] + length)
            else:
                merged.append((start, length))
        self.free_blocks = merged


class PinMemoryAllocator(BufferAllocator):
    def __init__(self, size: int):
        super().__init__(torch.empty(size, dtype=torch.uint8, pin_memory=True))


class GPUMemoryAllocator(BufferAllocator):
    def __init__(self, size: int, device: str = "cuda"):
        super().__init__(torch.empty(size, dtype=torch.uint8, device=device))
