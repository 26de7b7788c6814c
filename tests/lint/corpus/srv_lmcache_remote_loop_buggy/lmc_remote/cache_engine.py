"""The cache engine the vLLM adapter drives: store() after a forward, retrieve() before one."""

import hashlib

import torch

from lmc_remote.gpu_connector import VLLMPagedMemGPUConnector
from lmc_remote.memory_management import PinnedMemoryAllocator
from lmc_remote.remote_backend import RemoteBackend
from lmc_remote.utils import CacheEngineKey


class LMCacheEngine:
    def __init__(self, config, model_name, worker_id, world_size, kv_caches):
        self.config = config
        self.model_name = model_name
        self.worker_id = worker_id
        self.world_size = world_size
        self.gpu_connector = VLLMPagedMemGPUConnector(kv_caches, config.chunk_size)
        self.allocator = PinnedMemoryAllocator(config.local_cpu_buffer_bytes)
        self.remote = RemoteBackend(config)

    def _chunks(self, tokens):
        prefix = hashlib.sha256()
        step = self.config.chunk_size
        for start in range(0, len(tokens), step):
            end = min(start + step, len(tokens))
            if end - start < step and not self.config.save_unfull_chunk:
                return
            prefix.update(torch.as_tensor(tokens[start:end]).numpy().tobytes())
            yield start, end, CacheEngineKey(self.model_name, self.world_size, self.worker_id, prefix.hexdigest())

    def store(self, tokens, slot_mapping):
        futures = []
        for start, end, key in self._chunks(tokens):
            memory_obj = self.allocator.allocate(self.gpu_connector.chunk_shape(end - start), torch.bfloat16)
            stored = self.gpu_connector.from_gpu(memory_obj, slot_mapping, start, end)
            futures.append(self.remote.submit_put_task(key, memory_obj, stored))
        return futures

    def retrieve(self, tokens, slot_mapping):
        retrieved = 0
        for start, end, key in self._chunks(tokens):
            memory_obj = self.allocator.allocate(self.gpu_connector.chunk_shape(end - start), torch.bfloat16)
            self.remote.get_blocking(key, memory_obj)
            self.gpu_connector.to_gpu(memory_obj, slot_mapping, start, end)
            retrieved = end
        return retrieved
