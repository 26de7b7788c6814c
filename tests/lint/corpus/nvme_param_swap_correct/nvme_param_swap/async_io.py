"""Thread-pool backed stand-in for `aio_handle` when libaio is not available."""
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List

import numpy as np

from .constants import AIO_BLOCK_SIZE, AIO_THREAD_COUNT


class AsyncIOHandle:

    def __init__(self, block_size: int = AIO_BLOCK_SIZE, thread_count: int = AIO_THREAD_COUNT):
        self._block_size = block_size
        self._executor = ThreadPoolExecutor(max_workers=thread_count, thread_name_prefix="ds_aio")
        self._pending: List[Future] = []

    def async_pwrite(self, array: np.ndarray, path: str) -> None:
        self._pending.append(self._executor.submit(self._pwrite, array, path))

    def async_pread(self, array: np.ndarray, path: str) -> None:
        self._pending.append(self._executor.submit(self._pread, array, path))

    def wait(self) -> int:
        completed = 0
        for future in self._pending:
            future.result()
            completed += 1
        self._pending.clear()
        return completed

    def _pwrite(self, array: np.ndarray, path: str) -> None:
        raw = array.view(np.uint8)
        with open(path, "wb", buffering=0) as fh:
            for offset in range(0, raw.size, self._block_size):
                fh.write(raw[offset:offset + self._block_size])

    def _pread(self, array: np.ndarray, path: str) -> None:
        raw = array.view(np.uint8)
        with open(path, "rb", buffering=0) as fh:
            fh.readinto(memoryview(raw))
