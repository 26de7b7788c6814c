from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import zlib
from typing import Dict, Optional

import cupy
import cupyx
import numpy as np

from .config import SpillConfig

logger = logging.getLogger(__name__)

_SHUTDOWN = object()


@dataclasses.dataclass
class SpillRequest:
    key: str
    array: cupy.ndarray
    # recorded on the producing stream once ``array`` is fully written
    ready: cupy.cuda.Event


@dataclasses.dataclass
class SpilledBuffer:
    host: np.ndarray
    checksum: Optional[int] = None

    @property
    def nbytes(self) -> int:
        return self.host.nbytes


class SpillManager:
    """Moves device arrays into pinned host memory on a background thread."""

    def __init__(self, config: SpillConfig, device_id: int = 0) -> None:
        self._config = config
        self._device = cupy.cuda.Device(device_id)
        with self._device:
            self._spill_stream = cupy.cuda.Stream(non_blocking=True)
        self._spilled: Dict[str, SpilledBuffer] = {}
        self._lock = threading.Lock()
        self._requests: "queue.Queue[object]" = queue.Queue(maxsize=config.queue_depth)
        self._worker = threading.Thread(
            target=self._run, name=config.worker_name, daemon=True
        )
        self._worker.start()

    @property
    def spilled_bytes(self) -> int:
        with self._lock:
            return sum(b.nbytes for b in self._spilled.values())

    def spill(self, key: str, array: cupy.ndarray, ready: cupy.cuda.Event) -> None:
        self._requests.put(SpillRequest(key=key, array=array, ready=ready))

    def flush(self) -> None:
        self._requests.join()

    def close(self) -> None:
        self._requests.put(_SHUTDOWN)
        self._worker.join()

    def _run(self) -> None:
        with self._device:
            while True:
                item = self._requests.get()
                try:
                    if item is _SHUTDOWN:
                        return
                    self._spill_one(item)
                except Exception:
                    logger.exception("spill of %s failed", getattr(item, "key", "?"))
                finally:
                    self._requests.task_done()

    def _spill_one(self, req: SpillRequest) -> None:
        pinned = cupyx.empty_pinned(req.array.shape, dtype=req.array.dtype)
        with self._spill_stream:
            self._spill_stream.wait_event(req.ready)
            req.array.get(stream=self._spill_stream, out=pinned, blocking=False)
        self._spill_stream.synchronize()
        buf = SpilledBuffer(host=pinned)
        if self._config.verify_checksums:
            buf.checksum = zlib.crc32(pinned)
        with self._lock:
            self._spilled[req.key] = buf
        logger.debug("spilled %s (%d bytes)", req.key, buf.nbytes)

    def restore(self, key: str, stream: cupy.cuda.Stream) -> cupy.ndarray:
        with self._lock:
            buf = self._spilled.pop(key)
        if buf.checksum is not None and zlib.crc32(buf.host) != buf.checksum:
            raise RuntimeError(f"checksum mismatch while restoring {key!r}")
        with stream:
            out = cupy.empty(buf.host.shape, dtype=buf.host.dtype)
            out.set(buf.host, stream=stream)
        # keep the pinned buffer alive until the upload has landed
        stream.synchronize()
        return out
