"""GPU-side chunking + asynchronous device-to-host staging + a compressing writer thread."""
import itertools
import logging
import queue
import threading
from dataclasses import dataclass
from typing import Optional, Sequence

import cupy
import cupyx
import numpy

from .codec import encode
from .store import DirectoryStore

logger = logging.getLogger(__name__)


def byte_shuffle(chunk: cupy.ndarray) -> cupy.ndarray:
    """Blosc-style shuffle: byte k of every element together, which zlib compresses far better."""
    raw = cupy.ascontiguousarray(chunk).view(cupy.uint8).reshape(-1, chunk.dtype.itemsize)
    return cupy.ascontiguousarray(raw.T).ravel()


def _pad(chunk: cupy.ndarray, shape: Sequence[int]) -> cupy.ndarray:
    out = cupy.zeros(tuple(shape), dtype=chunk.dtype)
    out[tuple(slice(0, n) for n in chunk.shape)] = chunk
    return out


@dataclass
class _Job:
    key: str
    slot: int
    host: numpy.ndarray
    landed: cupy.cuda.Event
    # the shuffled device chunk must outlive its copy: cupy's pool would hand it out again
    device_ref: Optional[cupy.ndarray]


class ChunkedWriter:
    def __init__(self, store: DirectoryStore, chunk_shape: Sequence[int], dtype,
                 *, level: int = 5, staging_slots: int = 4):
        self.store = store
        self.chunk_shape = tuple(chunk_shape)
        self.dtype = numpy.dtype(dtype)
        self.level = level
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.d2h = cupy.cuda.Stream(non_blocking=True)
        nbytes = int(numpy.prod(self.chunk_shape)) * self.dtype.itemsize
        self._staging = [cupyx.empty_pinned((nbytes,), dtype=numpy.uint8)
                         for _ in range(staging_slots)]
        # ring of staging buffers: a slot is reused only after the writer thread released it
        self._slots_free = threading.Semaphore(staging_slots)
        self._next_slot = 0
        self._jobs: "queue.Queue[Optional[_Job]]" = queue.Queue()
        self._error: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._drain, name="chunk-writer", daemon=True)
        self._thread.start()

    def write(self, array: cupy.ndarray) -> None:
        if array.dtype != self.dtype:
            raise TypeError(f"expected {self.dtype}, got {array.dtype}")
        self.store.write_metadata({
            "shape": list(array.shape), "chunks": list(self.chunk_shape),
            "dtype": self.dtype.str, "compressor": {"id": "gzc1", "level": self.level},
        })
        # the array was produced on the caller's stream
        self.compute.wait_event(cupy.cuda.get_current_stream().record())
        grid = [range(0, n, c) for n, c in zip(array.shape, self.chunk_shape)]
        with self.compute:
            for origin in itertools.product(*grid):
                sl = tuple(slice(o, o + c) for o, c in zip(origin, self.chunk_shape))
                chunk = array[sl]
                if chunk.shape != self.chunk_shape:
                    chunk = _pad(chunk, self.chunk_shape)
                shuffled = byte_shuffle(chunk)
                self.d2h.wait_event(self.compute.record())
                self._slots_free.acquire()       # blocks while every staging buffer is in use
                slot = self._next_slot
                self._next_slot = (slot + 1) % len(self._staging)
                host = self._staging[slot]
                shuffled.get(stream=self.d2h, out=host, blocking=False)
                landed = cupy.cuda.Event(disable_timing=True)
                # on the copy's stream: inside `with self.compute` a bare record() would
                # mark the compute stream, which says nothing about the copy
                landed.record(self.d2h)
                key = ".".join(str(o // c) for o, c in zip(origin, self.chunk_shape))
                self._jobs.put(_Job(key, slot, host, landed, shuffled))
        if self._error is not None:
            raise RuntimeError("chunk writer failed") from self._error

    def _drain(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                break
            try:
                job.landed.synchronize()
                self.store[job.key] = encode(job.host, itemsize=self.dtype.itemsize,
                                             level=self.level)
            except BaseException as exc:      # reported by the next write()/close()
                logger.exception("writing chunk %s failed", job.key)
                self._error = exc
            finally:
                job.device_ref = None
                self._slots_free.release()

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join()
        if self._error is not None:
            raise RuntimeError("chunk writer failed") from self._error
