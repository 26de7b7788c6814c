"""Node features kept in host memory, page-locked in place with cudaHostRegister so the
cache can DMA single rows out of them (the table is far larger than the pinned pool would
like to hand out in one piece)."""

import numpy as np
from cupy.cuda import runtime


class HostFeatureTable:
    def __init__(self, path: str):
        self.features = np.ascontiguousarray(np.load(path, mmap_mode="r"), dtype=np.float16)
        self.num_nodes, self.dim = self.features.shape
        self.row_bytes = self.dim * self.features.itemsize
        self.base = self.features.ctypes.data
        runtime.hostRegister(self.base, self.features.nbytes, 0)
        self._registered = True

    def row_ptr(self, node: int) -> int:
        return self.base + int(node) * self.row_bytes

    def close(self) -> None:
        if self._registered:
            runtime.hostUnregister(self.base)
            self._registered = False
