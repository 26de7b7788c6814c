"""Storage backends that receive CPU copies of KV layers."""

from __future__ import annotations

import os
import threading

import torch

from lmc_connector.config import LMCacheEngineConfig, StoreLocation


class LocalCPUBackend:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._store: dict[str, torch.Tensor] = {}

    def put(self, key: str, kv: torch.Tensor) -> None:
        with self._lock:
            self._store[key] = kv

    def contains(self, key: str) -> bool:
        with self._lock:
            return key in self._store


class LocalDiskBackend:
    def __init__(self, path: str) -> None:
        self._path = path
        os.makedirs(path, exist_ok=True)

    def _file_for(self, key: str) -> str:
        return os.path.join(self._path, key.replace("@", "_") + ".kv")

    def put(self, key: str, kv: torch.Tensor) -> None:
        with open(self._file_for(key), "wb") as f:
            # expect: KVG003
            f.write(kv.contiguous().view(torch.uint8).numpy().tobytes())

    def contains(self, key: str) -> bool:
        return os.path.exists(self._file_for(key))


def create_backend(config: LMCacheEngineConfig):
    if config.location is StoreLocation.LOCAL_CPU:
        return LocalCPUBackend()
    return LocalDiskBackend(config.local_disk_path)
