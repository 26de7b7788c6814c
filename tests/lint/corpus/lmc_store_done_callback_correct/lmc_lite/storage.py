"""Storage manager: a CPU hot cache in front of a local disk tier."""

import os
import threading
from collections import OrderedDict
from typing import List

from lmc_lite.memory import MemoryObj


class LocalCPUBackend:

    def __init__(self):
        self.hot_cache: "OrderedDict[str, MemoryObj]" = OrderedDict()
        self._lock = threading.Lock()

    def put(self, key: str, obj: MemoryObj) -> None:
        with self._lock:
            self.hot_cache[key] = obj
            self.hot_cache.move_to_end(key)


class LocalDiskBackend:

    def __init__(self, path: str):
        self.path = path
        os.makedirs(path, exist_ok=True)

    def put(self, key: str, obj: MemoryObj) -> None:
        with open(os.path.join(self.path, key.replace("/", "-") + ".kv"), "wb") as f:
            f.write(obj.byte_array)


class StorageManager:

    def __init__(self, local_disk: str):
        self.cpu = LocalCPUBackend()
        self.disk = LocalDiskBackend(local_disk)

    def batched_put(self, keys: List[str], objs: List[MemoryObj]) -> None:
        for key, obj in zip(keys, objs):
            self.cpu.put(key, obj)
            self.disk.put(key, obj)
