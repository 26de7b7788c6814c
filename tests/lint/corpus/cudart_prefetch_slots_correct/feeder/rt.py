"""cuda-python runtime helpers."""
import ctypes

import numpy as np
from cuda.bindings import runtime as cudart


class CudaError(RuntimeError):
    pass


def check(result):
    err, *rest = result
    if err != cudart.cudaError_t.cudaSuccess:
        raise CudaError(cudart.cudaGetErrorName(err)[1].decode())
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


class PinnedStaging:
    """`count` host slots of `slot_bytes` each, page-locked, with numpy views for filling."""

    def __init__(self, count: int, slot_bytes: int):
        self.slot_bytes = slot_bytes
        self.base = check(cudart.cudaMallocHost(count * slot_bytes))
        self._views = [
            np.ctypeslib.as_array((ctypes.c_uint8 * slot_bytes).from_address(self.base + i * slot_bytes))
            for i in range(count)
        ]

    def ptr(self, i: int) -> int:
        return self.base + i * self.slot_bytes

    def view(self, i: int, dtype, shape) -> np.ndarray:
        return self._views[i].view(dtype)[: int(np.prod(shape))].reshape(shape)

    def free(self) -> None:
        check(cudart.cudaFreeHost(self.base))
