"""The CPU tier in the shape of LMCache's LocalCPUBackend behind a storage manager."""

import threading
from collections import OrderedDict
from typing import List, Optional, Sequence, Tuple

from lmc_store.memory_management import PinMemoryAllocator, TensorMemoryObj

CacheEngineKey = Tuple[str, int, str]


class LocalCPUBackend:
    def __init__(self, allocator: PinMemoryAllocator, max_objects: int = 4096):
        self.allocator = allocator
        self.hot_cache: "OrderedDict[CacheEngineKey, TensorMemoryObj]" = OrderedDict()
        self.cpu_lock = threading.Lock()
        self.max_objects = max_objects

    def contains(self, key: CacheEngineKey) -> bool:
        with self.cpu_lock:
            return key in self.hot_cache

    def submit_put_task(self, key: CacheEngineKey, memory_obj: TensorMemoryObj) -> None:
        with self.cpu_lock:
            if key in self.hot_cache:
                return
            memory_obj.ref_count_up()
            self.hot_cache[key] = memory_obj
            while len(self.hot_cache) > self.max_objects:
                _, evicted = self.hot_cache.popitem(last=False)
                evicted.ref_count_down()

    def get_blocking(self, key: CacheEngineKey) -> Optional[TensorMemoryObj]:
        with self.cpu_lock:
            obj = self.hot_cache.get(key)
            if obj is not None:
                self.hot_cache.move_to_end(key)
                obj.ref_count_up()
            return obj


class StorageManager:
    def __init__(self, allocator: PinMemoryAllocator):
        self.allocator = allocator
        self.local_cpu_backend = LocalCPUBackend(allocator)

    def allocate(self, shape, dtype) -> Optional[TensorMemoryObj]:
        return self.allocator.allocate(shape, dtype)

    def batched_put(self, keys: Sequence[CacheEngineKey], objs: List[TensorMemoryObj]) -> None:
        for key, obj in zip(keys, objs):
            self.local_cpu_backend.submit_put_task(key, obj)
            obj.ref_count_down()
