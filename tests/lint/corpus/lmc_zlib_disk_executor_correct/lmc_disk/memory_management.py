import ctypes
import threading
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    address: int
    phy_size: int


class TensorMemoryObj:
    """A view of the pinned pool. ``byte_array`` exposes the bytes without copying them, for
    the storage backends that hand them to I/O or compression libraries; it first waits for
    the copy that fills the object, if one is still pending."""

    def __init__(self, raw_data: torch.Tensor, metadata: MemoryObjMetadata):
        self.raw_data = raw_data
        self.metadata = metadata
        # set while a device -> host copy into this object may still be in flight
        self._pending: Optional[torch.cuda.Event] = None

    def mark_pending(self, event: torch.cuda.Event) -> None:
        self._pending = event

    def wait_ready(self) -> None:
        if self._pending is not None:
            self._pending.synchronize()
            self._pending = None

    @property
    def tensor(self) -> torch.Tensor:
        return self.raw_data.view(self.metadata.dtype).view(self.metadata.shape)

    @property
    def byte_array(self) -> memoryview:
        self.wait_ready()
        num_bytes = self.raw_data.numel() * self.raw_data.element_size()
        ptr = self.raw_data.data_ptr()
        return memoryview((ctypes.c_ubyte * num_bytes).from_address(ptr))


class PinMemoryAllocator:
    def __init__(self, size: int):
        self.buffer = torch.empty(size, dtype=torch.uint8, pin_memory=True)
        self.offset = 0
        self.num_live = 0
        self.lock = threading.Lock()

    def allocate(self, shape, dtype: torch.dtype) -> Optional[TensorMemoryObj]:
        """Bump allocation; the arena is reset once every object handed out has been freed."""
        nbytes = torch.Size(shape).numel() * torch.tensor([], dtype=dtype).element_size()
        with self.lock:
            if self.offset + nbytes > self.buffer.numel():
                return None
            raw = self.buffer[self.offset:self.offset + nbytes]
            obj = TensorMemoryObj(raw, MemoryObjMetadata(torch.Size(shape), dtype, self.offset, nbytes))
            self.offset += nbytes
            self.num_live += 1
        return obj

    def free(self, obj: TensorMemoryObj) -> None:
        with self.lock:
            self.num_live -= 1
            if self.num_live == 0:
                self.offset = 0
