import hashlib
from typing import List

import torch

from lmc_disk.gpu_connector import VLLMPagedMemGPUConnector
from lmc_disk.local_disk_backend import LocalDiskBackend
from lmc_disk.memory_management import PinMemoryAllocator


class LMCacheEngine:
    def __init__(self, config, metadata):
        self.chunk_size = config.chunk_size
        self.model_name = metadata.model_name
        self.allocator = PinMemoryAllocator(config.max_local_cpu_size)
        self.gpu_connector = VLLMPagedMemGPUConnector(metadata.hidden_dim, metadata.num_layers)
        self.storage = LocalDiskBackend(config.local_disk, self.allocator)

    def _chunk_keys(self, tokens: List[int]):
        h = hashlib.sha256(self.model_name.encode())
        for start in range(0, len(tokens) - self.chunk_size + 1, self.chunk_size):
            end = start + self.chunk_size
            h.update(repr(tokens[start:end]).encode())
            yield start, end, h.hexdigest()

    def store(self, tokens: List[int], kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor) -> None:
        keys, objs, starts, ends = [], [], [], []
        for start, end, key in self._chunk_keys(tokens):
            if self.storage.contains(key):
                continue
            obj = self.allocator.allocate(self.gpu_connector.get_shape(end - start), kvcaches[0].dtype)
            if obj is None:
                break  # staging space exhausted; the rest of the prefix is not stored this time
            objs.append(obj)
            keys.append(key)
            starts.append(start)
            ends.append(end)
        if not objs:
            return
        self.gpu_connector.batched_from_gpu(objs, starts, ends, kvcaches, slot_mapping)
        for key, obj in zip(keys, objs):
            self.storage.submit_put_task(key, obj)

    def retrieve(self, tokens: List[int], kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor) -> int:
        retrieved = 0
        for start, end, key in self._chunk_keys(tokens):
            obj = self.storage.get_blocking(key)
            if obj is None:
                break
            self.gpu_connector.to_gpu(obj, start, end, kvcaches, slot_mapping)
            self.allocator.free(obj)
            retrieved = end
        return retrieved
