# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass, field
from typing import List, Optional
import logging

# Third Party
import torch

logger = logging.getLogger(__name__)


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    fmt: str = "KV_2TD"
    ref_count: int = 1


@dataclass
class MemoryObj:
    tensor: torch.Tensor
    metadata: MemoryObjMetadata
    key: Optional[str] = None

    def ref_count_down(self) -> None:
        self.metadata.ref_count -= 1


@dataclass
class PinnedMemoryAllocator:
    """Hands out page-locked host tensors for KV chunks."""

    dtype: torch.dtype
    _free: List[torch.Tensor] = field(default_factory=list)

    def allocate(self, shape: torch.Size) -> MemoryObj:
        for i, buf in enumerate(self._free):
            if buf.shape == shape:
                tensor = self._free.pop(i)
                break
        else:
            tensor = torch.empty(shape, dtype=self.dtype, pin_memory=True)
        return MemoryObj(tensor=tensor, metadata=MemoryObjMetadata(shape, self.dtype))

    def batched_allocate(self, shapes: List[torch.Size]) -> List[MemoryObj]:
        return [self.allocate(s) for s in shapes]

    def free(self, obj: MemoryObj) -> None:
        self._free.append(obj.tensor)
        logger.debug("Returned %s bytes to pinned pool", obj.tensor.nbytes)
