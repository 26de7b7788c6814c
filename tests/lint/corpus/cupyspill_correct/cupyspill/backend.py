# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, Optional, Tuple
import logging
import os
import struct
import threading
import zlib

# Third Party
import cupy
import numpy

# First Party
from cupyspill.constants import (
    NUM_IO_WORKERS,
    SPILL_FILE_SUFFIX,
    SPILL_MAGIC,
    SPILL_VERSION,
)
from cupyspill.pinned import PinnedBufferPool, PinnedSlot

logger = logging.getLogger(__name__)


def _make_header(key: str, host: numpy.ndarray) -> bytes:
    crc = zlib.crc32(host) & 0xFFFFFFFF
    key_bytes = key.encode()
    return SPILL_MAGIC + struct.pack("<HIQH", SPILL_VERSION, crc, host.nbytes, len(key_bytes)) + key_bytes


class LocalDiskBackend:
    def __init__(self, spill_dir: str, pool: PinnedBufferPool, num_workers: int = NUM_IO_WORKERS):
        os.makedirs(spill_dir, exist_ok=True)
        self.spill_dir = spill_dir
        self.pool = pool
        self.d2h_stream = cupy.cuda.Stream(non_blocking=True)
        self._executor = ThreadPoolExecutor(num_workers, thread_name_prefix="lmc-spill")
        self._index: Dict[str, Tuple[str, Tuple[int, ...], str]] = {}
        self._lock = threading.Lock()

    def submit_put(self, key: str, gpu_chunk: cupy.ndarray, ready: Optional[cupy.cuda.Event]) -> Future:
        slot = self.pool.acquire()
        host = slot.as_array(gpu_chunk.shape, gpu_chunk.dtype)
        with self.d2h_stream:
            if ready is not None:
                self.d2h_stream.wait_event(ready)
            gpu_chunk.get(stream=self.d2h_stream, out=host, blocking=False)
            copied = cupy.cuda.Event(block=True, disable_timing=True)
            copied.record(self.d2h_stream)
        return self._executor.submit(self._write_chunk, key, gpu_chunk, slot, host, copied)

    def _write_chunk(self, key: str, gpu_chunk: cupy.ndarray, slot: PinnedSlot,
                     host: numpy.ndarray, copied: cupy.cuda.Event) -> None:
        path = os.path.join(self.spill_dir, key + SPILL_FILE_SUFFIX)
        try:
            copied.synchronize()
            header = _make_header(key, host)
            with open(path, "wb") as fh:
                fh.write(header)
                fh.write(memoryview(host).cast("B"))
            with self._lock:
                self._index[key] = (path, host.shape, host.dtype.str)
        except OSError:
            logger.exception("Failed to spill %s", key)
        finally:
            del gpu_chunk
            self.pool.release(slot)

    def contains(self, key: str) -> bool:
        with self._lock:
            return key in self._index
