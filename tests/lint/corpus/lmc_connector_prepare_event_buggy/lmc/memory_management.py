import logging
from dataclasses import dataclass
from typing import Optional, Tuple

import torch

logger = logging.getLogger(__name__)


@dataclass
class MemoryObjMetadata:
    shape: Tuple[int, ...]
    dtype: torch.dtype
    ref_count: int = 1


class MemoryObj:
    def __init__(self, tensor: torch.Tensor, metadata: MemoryObjMetadata):
        self.tensor = tensor
        self.metadata = metadata

    def ref_count_down(self):
        self.metadata.ref_count -= 1


class PinMemoryAllocator:
    def __init__(self, size_gb: float):
        self.capacity = int(size_gb * (1 << 30))
        self.used = 0

    def allocate(self, shape, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
        if self.used + nbytes > self.capacity:
            logger.warning("pinned allocator out of space")
            return None
        self.used += nbytes
        buf = torch.empty(shape, dtype=dtype, pin_memory=True)
        return MemoryObj(buf, MemoryObjMetadata(tuple(shape), dtype))
