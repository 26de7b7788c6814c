"""Cache engine: splits a request's tokens into chunks, copies each chunk's KV off the GPU
and keeps it in the local CPU backend under the chunk's prefix hash."""

import hashlib

import torch

from lmc_sgl.gpu_connector import SGLangGPUConnector
from lmc_sgl.memory import PinnedArena


class LMCacheEngine:
    def __init__(self, config):
        self.chunk_size = config.chunk_size
        self.dtype = config.kv_dtype
        self.gpu_connector = SGLangGPUConnector(config.num_layers,
                                                config.num_kv_heads * config.head_dim,
                                                config.device)
        self.arena = PinnedArena(config.local_cpu_bytes)
        self.hot_cache = {}

    def _chunk_keys(self, tokens):
        prefix = hashlib.sha256()
        for start in range(0, len(tokens), self.chunk_size):
            prefix.update(str(tokens[start:start + self.chunk_size]).encode())
            yield start, min(start + self.chunk_size, len(tokens)), prefix.hexdigest()

    def store(self, tokens, k_buffers, v_buffers, slot_mapping):
        objs, starts, ends, keys = [], [], [], []
        for start, end, key in self._chunk_keys(tokens):
            if key in self.hot_cache:
                continue
            objs.append(self.arena.allocate(self.gpu_connector.get_shape(end - start), self.dtype))
            starts.append(start)
            ends.append(end)
            keys.append(key)
        if not objs:
            return 0
        self.gpu_connector.batched_from_gpu(objs, starts, ends, k_buffers=k_buffers,
                                            v_buffers=v_buffers, slot_mapping=slot_mapping)
        for key, obj in zip(keys, objs):
            obj.key = key
            self.hot_cache[key] = obj
        return len(objs)
