# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, Optional, Sequence
import os
import threading

# Third Party
import torch

# First Party
from lmc_store.config import LMCacheEngineConfig
from lmc_store.utils import CacheEngineKey, logger


class MemoryObj:
    def __init__(self, tensor: torch.Tensor):
        self.tensor: Optional[torch.Tensor] = tensor

    @property
    def byte_array(self) -> memoryview:
        assert self.tensor is not None
        return memoryview(self.tensor.view(-1).view(torch.uint8).numpy())

    def get_physical_size(self) -> int:
        assert self.tensor is not None
        return self.tensor.numel() * self.tensor.element_size()


class PinnedMemoryAllocator:
    def __init__(self, limit_bytes: int):
        self.limit_bytes = limit_bytes
        self.used_bytes = 0
        self._lock = threading.Lock()

    def allocate(self, shape: torch.Size, dtype: torch.dtype) -> Optional[MemoryObj]:
        nbytes = shape.numel() * torch.tensor([], dtype=dtype).element_size()
        with self._lock:
            if self.used_bytes + nbytes > self.limit_bytes:
                return None
            self.used_bytes += nbytes
        return MemoryObj(torch.empty(shape, dtype=dtype, pin_memory=True))

    def free(self, memory_obj: MemoryObj) -> None:
        with self._lock:
            self.used_bytes -= memory_obj.get_physical_size()
        memory_obj.tensor = None


class LocalDiskBackend:
    def __init__(self, config: LMCacheEngineConfig, allocator: PinnedMemoryAllocator):
        assert config.local_disk is not None
        self.path = config.local_disk
        os.makedirs(self.path, exist_ok=True)
        self.allocator = allocator
        self.executor = ThreadPoolExecutor(max_workers=config.num_io_workers)
        self.put_tasks: Dict[CacheEngineKey, Future] = {}
        self.lock = threading.Lock()

    def _key_to_path(self, key: CacheEngineKey) -> str:
        return os.path.join(self.path, key.to_string().replace("/", "-") + ".kv")

    def batched_submit_put_task(
        self, keys: Sequence[CacheEngineKey], memory_objs: List[MemoryObj]
    ) -> None:
        for key, memory_obj in zip(keys, memory_objs, strict=True):
            with self.lock:
                if key in self.put_tasks:
                    self.allocator.free(memory_obj)
                    continue
                future = self.executor.submit(self._save_to_disk, key, memory_obj)
                self.put_tasks[key] = future

    def _save_to_disk(self, key: CacheEngineKey, memory_obj: MemoryObj) -> None:
        path = self._key_to_path(key)
        with open(path, "wb") as f:
            f.write(memory_obj.byte_array)
        logger.debug("Saved %s (%d bytes)", key.chunk_hash[:8], memory_obj.get_physical_size())
        self.allocator.free(memory_obj)
        with self.lock:
            self.put_tasks.pop(key, None)

    def close(self) -> None:
        self.executor.shutdown(wait=True)
