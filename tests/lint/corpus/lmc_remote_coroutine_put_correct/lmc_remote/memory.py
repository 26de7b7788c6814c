"""Pinned memory objects handed between the GPU connector and the storage backends."""

from dataclasses import dataclass, field

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    key: str


@dataclass
class MemoryObj:
    tensor: torch.Tensor
    meta: MemoryObjMetadata
    copy_done: torch.cuda.Event = field(default_factory=torch.cuda.Event)

    @property
    def byte_view(self):
        return self.tensor.view(torch.uint8).numpy()


class PinnedAllocator:
    """Hands out pinned objects up to a byte budget; a put gives its object back."""

    def __init__(self, capacity_bytes: int):
        self.capacity_bytes = capacity_bytes
        self.used_bytes = 0

    def allocate(self, shape, dtype, key) -> MemoryObj:
        tensor = torch.empty(shape, dtype=dtype, pin_memory=True)
        nbytes = tensor.numel() * tensor.element_size()
        if self.used_bytes + nbytes > self.capacity_bytes:
            raise MemoryError("pinned staging budget exhausted")
        self.used_bytes += nbytes
        return MemoryObj(tensor, MemoryObjMetadata(torch.Size(shape), dtype, key))

    def free(self, obj: MemoryObj) -> None:
        self.used_bytes -= obj.tensor.numel() * obj.tensor.element_size()
