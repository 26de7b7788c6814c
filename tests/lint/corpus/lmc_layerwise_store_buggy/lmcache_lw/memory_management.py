from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    ref_count: int = 1
    ready_event: Optional[torch.cuda.Event] = None


class MemoryObj:
    def __init__(self, tensor: torch.Tensor, metadata: MemoryObjMetadata):
        self.tensor = tensor
        self.metadata = metadata

    def ref_count_down(self) -> None:
        self.metadata.ref_count -= 1


class PinMemoryAllocator:
    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.used_bytes = 0

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> MemoryObj:
        tensor = torch.empty(shape, dtype=dtype, pin_memory=True)
        self.used_bytes += tensor.numel() * tensor.element_size()
        return MemoryObj(tensor, MemoryObjMetadata(shape, dtype))

    def free(self, memory_obj: MemoryObj) -> None:
        self.used_bytes -= memory_obj.tensor.numel() * memory_obj.tensor.element_size()
