from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    phy_size: int


@dataclass
class MemoryObj:
    """Pinned host chunk holding [layers, blocks, 2, block_size, heads, dim]."""

    tensor: torch.Tensor
    metadata: MemoryObjMetadata
    ready_event: Optional[torch.cuda.Event] = None
    _ref_count: int = 1
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.tensor.view(torch.uint8).numpy()).cast("B")

    def ref_count_up(self) -> None:
        with self._lock:
            self._ref_count += 1

    def ref_count_down(self) -> None:
        with self._lock:
            self._ref_count -= 1

    def get_size(self) -> int:
        return self.metadata.phy_size
