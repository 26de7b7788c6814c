import ctypes
import logging
from pathlib import Path

import numpy as np
from cuda.bindings import runtime as cudart

from .rt import check

logger = logging.getLogger(__name__)


class HostAdapterCache:
    """Pinned host copies of adapter weights; an entry is immutable once inserted."""

    def __init__(self, max_adapters: int):
        self._max = max_adapters
        self._entries: dict[int, tuple[int, int]] = {}  # adapter_id -> (host_ptr, nbytes)

    def insert_from_file(self, adapter_id: int, path: Path) -> None:
        if adapter_id in self._entries:
            return
        if len(self._entries) >= self._max:
            raise RuntimeError("host adapter cache is full")
        weights = np.load(path, mmap_mode="r")
        nbytes = weights.nbytes
        ptr = check(cudart.cudaMallocHost(nbytes))
        ctypes.memmove(ptr, weights.ctypes.data, nbytes)
        self._entries[adapter_id] = (ptr, nbytes)
        logger.info("adapter %d cached on host (%d bytes)", adapter_id, nbytes)

    def get(self, adapter_id: int) -> tuple[int, int]:
        return self._entries[adapter_id]
