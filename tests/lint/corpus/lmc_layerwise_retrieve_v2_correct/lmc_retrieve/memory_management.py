# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Optional
import logging

# Third Party
import torch

logger = logging.getLogger("lmc_retrieve")


@dataclass
class MemoryObj:
    """A KV_2TD chunk: tensor shaped [2, num_tokens, hidden_dim]."""

    tensor: torch.Tensor
    old_positions: Optional[torch.Tensor] = None
    ref_count: int = 1

    def ref_count_down(self) -> None:
        self.ref_count -= 1


class GPUMemoryAllocator:
    """Carves fixed-size GPU buffers out of one preallocated region."""

    def __init__(self, size_in_bytes: int, device: torch.device):
        self._region = torch.empty(size_in_bytes, dtype=torch.uint8, device=device)
        self._cursor = 0

    def reset(self) -> None:
        self._cursor = 0

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> MemoryObj:
        itemsize = torch.tensor([], dtype=dtype).element_size()
        nbytes = shape.numel() * itemsize
        if self._cursor + nbytes > self._region.numel():
            raise MemoryError("GPU buffer region exhausted")
        view = self._region[self._cursor : self._cursor + nbytes]
        self._cursor += nbytes
        return MemoryObj(view.view(dtype).view(shape))
