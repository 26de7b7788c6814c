from __future__ import annotations

import zlib
from ctypes import c_void_p
from dataclasses import dataclass

from . import _cudart
from ._cudart import MemcpyKind
from .staging import PinnedStaging


@dataclass(frozen=True)
class FetchResult:
    payload: bytes
    crc32: int


class ResultFetcher:
    """Copies an engine's output buffer back to the host on a private copy stream.

    ``compute_stream`` is the raw ``cudaStream_t`` the engine enqueues its
    kernels on (as returned by its ``get_stream()``), passed in as an int.
    """

    def __init__(self, compute_stream: int, capacity: int) -> None:
        self._compute = c_void_p(compute_stream)
        self._copy = _cudart.create_stream()
        self._produced = _cudart.create_event()
        self._fetched = _cudart.create_event()
        self._staging = PinnedStaging(capacity)
        # Resolve the entry points once; fetch() sits on the request path.
        self._memcpy_async = _cudart.lib.cudaMemcpyAsync
        self._stream_wait_event = _cudart.lib.cudaStreamWaitEvent
        self._event_record = _cudart.lib.cudaEventRecord
        self._event_sync = _cudart.lib.cudaEventSynchronize

    def fetch(self, dev_ptr: int, nbytes: int) -> FetchResult:
        if nbytes > self._staging.nbytes:
            raise ValueError(f"{nbytes} bytes exceeds staging capacity {self._staging.nbytes}")
        _cudart.check(self._event_record(self._produced, self._compute), "cudaEventRecord")
        _cudart.check(self._stream_wait_event(self._copy, self._produced, 0), "cudaStreamWaitEvent")
        rc = self._memcpy_async(
            self._staging.ptr, c_void_p(dev_ptr), nbytes, int(MemcpyKind.DeviceToHost), self._copy
        )
        _cudart.check(rc, "cudaMemcpyAsync")
        _cudart.check(self._event_record(self._fetched, self._copy), "cudaEventRecord")
        _cudart.check(self._event_sync(self._fetched), "cudaEventSynchronize")
        view = self._staging.view(nbytes)
        crc = zlib.crc32(view)
        return FetchResult(payload=bytes(view), crc32=crc)

    def close(self) -> None:
        _cudart.check(_cudart.lib.cudaStreamSynchronize(self._copy), "cudaStreamSynchronize")
        for ev in (self._produced, self._fetched):
            _cudart.check(_cudart.lib.cudaEventDestroy(ev), "cudaEventDestroy")
        _cudart.check(_cudart.lib.cudaStreamDestroy(self._copy), "cudaStreamDestroy")
        self._staging.close()
