# SPDX-License-Identifier: Apache-2.0
import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict, List, Optional

import torch

from .config import DISK_WORKER_PREFIX, LMCacheEngineConfig

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CacheEngineKey:
    model_name: str
    worker_id: int
    chunk_hash: str
    layer_id: int = -1

    def to_filename(self) -> str:
        model = self.model_name.replace("/", "-")
        return f"{model}@{self.worker_id}@{self.chunk_hash}@{self.layer_id}.kv"


class MemoryObj:
    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor
        self.ref_count = 1

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.tensor.flatten().view(torch.uint8).numpy())


class LocalDiskBackend:
    def __init__(self, path: str, num_workers: int):
        os.makedirs(path, exist_ok=True)
        self.path = path
        self.lock = threading.Lock()
        self.put_tasks: Dict[CacheEngineKey, Future] = {}
        self.executor = ThreadPoolExecutor(
            max_workers=num_workers, thread_name_prefix=DISK_WORKER_PREFIX
        )

    def submit_put_task(self, key: CacheEngineKey, memory_obj: MemoryObj) -> Future:
        memory_obj.ref_count += 1
        future = self.executor.submit(self._async_save_bytes_to_disk, key, memory_obj)
        with self.lock:
            self.put_tasks[key] = future
        return future

    def _async_save_bytes_to_disk(self, key: CacheEngineKey, memory_obj: MemoryObj) -> None:
        path = os.path.join(self.path, key.to_filename())
        with open(path, "wb") as f:
            f.write(memory_obj.byte_array)
        memory_obj.ref_count -= 1
        with self.lock:
            self.put_tasks.pop(key, None)


class StorageManager:
    def __init__(self, config: LMCacheEngineConfig):
        self.config = config
        self.hot_cache: Dict[CacheEngineKey, MemoryObj] = {}
        disk_path = config.disk_path
        self.disk_backend: Optional[LocalDiskBackend] = (
            LocalDiskBackend(disk_path, config.num_disk_workers) if disk_path else None
        )

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> MemoryObj:
        return MemoryObj(torch.empty(shape, dtype=dtype, pin_memory=True))

    def batched_put(self, keys: List[CacheEngineKey], memory_objs: List[MemoryObj]) -> None:
        for key, memory_obj in zip(keys, memory_objs):
            if self.config.local_cpu:
                self.hot_cache[key] = memory_obj
            if self.disk_backend is not None:
                self.disk_backend.submit_put_task(key, memory_obj)
