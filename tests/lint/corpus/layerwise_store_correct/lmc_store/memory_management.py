# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from enum import Enum, auto
import logging
import threading

# Third Party
import torch

logger = logging.getLogger(__name__)


class MemoryFormat(Enum):
    UNDEFINED = auto()
    # [2, num_tokens, hidden_dim]
    KV_2TD = auto()


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    fmt: MemoryFormat = MemoryFormat.KV_2TD


class MemoryObj:
    def __init__(self, tensor: torch.Tensor, metadata: MemoryObjMetadata):
        self.tensor = tensor
        self.metadata = metadata
        self._ref_count = 1
        self._lock = threading.Lock()

    def ref_count_up(self) -> None:
        with self._lock:
            self._ref_count += 1

    def ref_count_down(self) -> None:
        with self._lock:
            self._ref_count -= 1

    def get_size(self) -> int:
        return self.tensor.numel() * self.tensor.element_size()


class PinnedMemoryAllocator:
    """Hands out page-locked host tensors and keeps track of the bytes in use."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.used_bytes = 0
        self._lock = threading.Lock()

    def allocate(
        self,
        shape: torch.Size,
        dtype: torch.dtype,
        fmt: MemoryFormat = MemoryFormat.KV_2TD,
    ) -> MemoryObj:
        tensor = torch.empty(shape, dtype=dtype, pin_memory=True)
        nbytes = tensor.numel() * tensor.element_size()
        with self._lock:
            self.used_bytes += nbytes
            if self.used_bytes > self.max_bytes:
                logger.warning(
                    "Local CPU cache over budget: %d / %d bytes",
                    self.used_bytes,
                    self.max_bytes,
                )
        return MemoryObj(tensor, MemoryObjMetadata(shape, dtype, fmt))
