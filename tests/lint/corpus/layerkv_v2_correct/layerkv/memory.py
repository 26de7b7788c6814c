# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Optional
import logging
import threading

# Third Party
import torch

logger = logging.getLogger(__name__)


class MemoryObj:
    def __init__(self, tensor: torch.Tensor, layer_id: int, start: int, allocator):
        self.tensor: Optional[torch.Tensor] = tensor
        self.layer_id = layer_id
        self.start = start
        self._allocator = allocator
        self._ref_count = 1

    def ref_count_down(self) -> None:
        self._ref_count -= 1
        if self._ref_count == 0:
            self._allocator.free(self)

    def get_size(self) -> int:
        assert self.tensor is not None
        return self.tensor.numel() * self.tensor.element_size()


class PinnedMemoryAllocator:
    def __init__(self, max_bytes: int):
        self._max_bytes = max_bytes
        self._used_bytes = 0
        self._lock = threading.Lock()

    def allocate(
        self, shape: torch.Size, dtype: torch.dtype, layer_id: int, start: int
    ) -> Optional[MemoryObj]:
        nbytes = shape.numel() * torch.tensor([], dtype=dtype).element_size()
        with self._lock:
            if self._used_bytes + nbytes > self._max_bytes:
                logger.warning("Pinned pool exhausted (%d bytes in use)", self._used_bytes)
                return None
            self._used_bytes += nbytes
        tensor = torch.empty(shape, dtype=dtype, pin_memory=True)
        return MemoryObj(tensor, layer_id, start, self)

    def free(self, memory_obj: MemoryObj) -> None:
        with self._lock:
            self._used_bytes -= memory_obj.get_size()
        memory_obj.tensor = None
