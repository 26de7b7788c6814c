import logging
import os
import threading
import zlib
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch

from lmc_disk.memory_management import PinMemoryAllocator, TensorMemoryObj

logger = logging.getLogger(__name__)


@dataclass
class DiskCacheMetadata:
    path: str
    compressed_size: int
    shape: torch.Size
    dtype: torch.dtype


class LocalDiskBackend:
    def __init__(self, path: str, allocator: PinMemoryAllocator, max_workers: int = 4,
                 compression_level: int = 1):
        self.path = path
        self.allocator = allocator
        self.compression_level = compression_level
        os.makedirs(path, exist_ok=True)
        self.dict: "OrderedDict[str, DiskCacheMetadata]" = OrderedDict()
        self.put_tasks: "dict[str, Future]" = {}
        self.lock = threading.Lock()
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="lmc-disk")

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.path, key.replace("/", "-") + ".kvz")

    def contains(self, key: str) -> bool:
        with self.lock:
            return key in self.dict

    def submit_put_task(self, key: str, memory_obj: TensorMemoryObj) -> Optional[Future]:
        with self.lock:
            if key in self.dict or key in self.put_tasks:
                return None
            future = self.executor.submit(self._async_save, key, memory_obj)
            self.put_tasks[key] = future
        return future

    def _async_save(self, key: str, memory_obj: TensorMemoryObj) -> None:
        path = self._key_to_path(key)
        payload = zlib.compress(memory_obj.byte_array, self.compression_level)
        with open(path + ".tmp", "wb") as f:
            f.write(payload)
        os.replace(path + ".tmp", path)
        with self.lock:
            self.dict[key] = DiskCacheMetadata(path, len(payload), memory_obj.metadata.shape,
                                               memory_obj.metadata.dtype)
            self.put_tasks.pop(key, None)
        self.allocator.free(memory_obj)

    def get_blocking(self, key: str) -> Optional[TensorMemoryObj]:
        with self.lock:
            meta = self.dict.get(key)
        if meta is None:
            return None
        with open(meta.path, "rb") as f:
            raw = zlib.decompress(f.read())
        memory_obj = self.allocator.allocate(meta.shape, meta.dtype)
        if memory_obj is None:
            return None
        memory_obj.raw_data.numpy()[:] = np.frombuffer(raw, dtype=np.uint8)
        return memory_obj
