from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Iterable

from .config import EvictionPolicy


class HostObjectStore:
    """Thread-safe bytes store keyed by block content hash, bounded by total size."""

    def __init__(self, capacity_bytes: int, policy: EvictionPolicy = EvictionPolicy.LRU) -> None:
        self.capacity_bytes = capacity_bytes
        self.policy = policy
        self._data: OrderedDict[str, bytes] = OrderedDict()
        self._used = 0
        self._lock = threading.Lock()

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._data

    @property
    def used_bytes(self) -> int:
        return self._used

    def get(self, key: str) -> bytes | None:
        with self._lock:
            blob = self._data.get(key)
            if blob is not None and self.policy is EvictionPolicy.LRU:
                self._data.move_to_end(key)
            return blob

    def put_many(self, items: Iterable[tuple[str, bytes]]) -> int:
        stored = 0
        with self._lock:
            for key, blob in items:
                if key in self._data:
                    continue
                self._data[key] = blob
                self._used += len(blob)
                stored += 1
            while self._used > self.capacity_bytes and self._data:
                _, old = self._data.popitem(last=False)
                self._used -= len(old)
        return stored
