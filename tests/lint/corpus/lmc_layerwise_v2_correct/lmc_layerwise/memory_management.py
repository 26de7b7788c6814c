import threading
from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class MemoryObj:
    tensor: torch.Tensor
    key: Optional[str] = None
    ref_count: int = field(default=1)

    def ref_count_down(self) -> None:
        self.ref_count -= 1


class PinnedMemoryAllocator:
    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.used_bytes = 0
        self._lock = threading.Lock()

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
        with self._lock:
            if self.used_bytes + nbytes > self.max_bytes:
                return None
            self.used_bytes += nbytes
        return MemoryObj(torch.empty(shape, dtype=dtype, pin_memory=True))

    def free(self, obj: MemoryObj) -> None:
        with self._lock:
            self.used_bytes -= obj.tensor.numel() * obj.tensor.element_size()
