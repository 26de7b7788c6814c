import threading
from dataclasses import dataclass, field
from enum import Enum
from typing import Optional

import torch


class MemoryFormat(Enum):
    KV_L2TD = 1  # [num_layers, 2, num_tokens, hidden_dim]


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    fmt: MemoryFormat = MemoryFormat.KV_L2TD
    ref_count: int = 1
    ready_event: torch.cuda.Event = field(default_factory=torch.cuda.Event)


class MemoryObj:
    def __init__(self, tensor: torch.Tensor, metadata: MemoryObjMetadata, allocator: "PinMemoryAllocator"):
        self.tensor = tensor
        self.metadata = metadata
        self._allocator = allocator
        self._lock = threading.Lock()

    def ref_count_up(self) -> None:
        with self._lock:
            self.metadata.ref_count += 1

    def ref_count_down(self) -> None:
        with self._lock:
            self.metadata.ref_count -= 1
            if self.metadata.ref_count == 0:
                self._allocator.free(self)

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.tensor.view(torch.uint8).numpy())


class PinMemoryAllocator:
    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.used_bytes = 0
        self.lock = threading.Lock()

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = shape.numel() * dtype.itemsize
        with self.lock:
            if self.used_bytes + nbytes > self.max_bytes:
                return None
            self.used_bytes += nbytes
        tensor = torch.empty(shape, dtype=dtype, pin_memory=True)
        return MemoryObj(tensor, MemoryObjMetadata(shape, dtype), self)

    def free(self, memory_obj: MemoryObj) -> None:
        with self.lock:
            self.used_bytes -= memory_obj.tensor.nbytes
