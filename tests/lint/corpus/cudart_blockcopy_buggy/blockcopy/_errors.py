from __future__ import annotations

from typing import Any

from cuda.bindings import runtime as cudart


class CudaRuntimeError(RuntimeError):
    def __init__(self, err: cudart.cudaError_t, what: str = "") -> None:
        _, name = cudart.cudaGetErrorName(err)
        _, desc = cudart.cudaGetErrorString(err)
        super().__init__(f"{what + ': ' if what else ''}{name.decode()} ({desc.decode()})")
        self.err = err


def check(result: Any, what: str = "") -> Any:
    """Unwrap a cuda-python ``(err, *values)`` tuple, raising on failure."""
    if isinstance(result, tuple):
        err, *values = result
    else:
        err, values = result, []
    if err != cudart.cudaError_t.cudaSuccess:
        raise CudaRuntimeError(err, what)
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)
