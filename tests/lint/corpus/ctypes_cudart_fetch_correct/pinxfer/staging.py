from __future__ import annotations

import ctypes
from ctypes import c_void_p

from . import _cudart


class PinnedStaging:
    """Page-locked host buffer from ``cudaHostAlloc`` exposed as a memoryview."""

    def __init__(self, nbytes: int) -> None:
        self.nbytes = nbytes
        self._ptr = c_void_p()
        _cudart.check(
            _cudart.lib.cudaHostAlloc(ctypes.byref(self._ptr), nbytes, _cudart.cudaHostAllocDefault),
            "cudaHostAlloc",
        )
        self._buf = (ctypes.c_char * nbytes).from_address(self._ptr.value)

    @property
    def ptr(self) -> c_void_p:
        return self._ptr

    def view(self, nbytes: int | None = None) -> memoryview:
        n = self.nbytes if nbytes is None else nbytes
        if n > self.nbytes:
            raise ValueError(f"requested {n} bytes from a {self.nbytes}-byte staging buffer")
        return memoryview(self._buf).cast("B")[:n]

    def close(self) -> None:
        if self._ptr.value:
            _cudart.check(_cudart.lib.cudaFreeHost(self._ptr), "cudaFreeHost")
            self._ptr = c_void_p()

    def __enter__(self) -> "PinnedStaging":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
