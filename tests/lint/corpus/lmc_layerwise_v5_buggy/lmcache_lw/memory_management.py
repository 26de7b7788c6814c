# SPDX-License-Identifier: Apache-2.0
# Standard
import logging
from dataclasses import dataclass
from typing import Optional, Tuple
import threading

# Third Party
import torch

logger = logging.getLogger(__name__)


@dataclass
class MemoryObj:
    tensor: torch.Tensor
    key: Optional[str] = None

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.tensor.view(torch.uint8).numpy())


class PinMemoryAllocator:
    """Carves pinned host buffers out of one pinned arena."""

    def __init__(self, size_bytes: int):
        self._arena = torch.empty(size_bytes, dtype=torch.uint8, pin_memory=True)
        self._offset = 0
        self._lock = threading.Lock()

    def allocate(self, shape: Tuple[int, ...], dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = torch.Size(shape).numel() * torch.tensor([], dtype=dtype).element_size()
        with self._lock:
            if self._offset + nbytes > self._arena.numel():
                logger.warning("Pinned arena exhausted (%d bytes requested)", nbytes)
                return None
            raw = self._arena[self._offset : self._offset + nbytes]
            self._offset += nbytes
        return MemoryObj(raw.view(dtype).view(shape))
