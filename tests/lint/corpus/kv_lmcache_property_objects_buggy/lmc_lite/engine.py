"""Cache engine: chunked store/retrieve plus a layerwise store, with a local disk backend."""

import os

import torch

from lmc_lite.gpu_connector import PagedGPUConnector
from lmc_lite.memory import PinnedAllocator


class LocalDiskBackend:
    def __init__(self, root):
        self.root = root

    def put(self, key, memory_obj):
        with open(os.path.join(self.root, f"{key}.kv"), "wb") as f:
            # expect: KVG003
            f.write(memory_obj.tensor.numpy().tobytes())


class CacheEngine:
    def __init__(self, num_layers, block_size, hidden, device, root):
        self.num_layers, self.block_size, self.hidden = num_layers, block_size, hidden
        self.allocator = PinnedAllocator(8 << 30)
        self.gpu_connector = PagedGPUConnector(num_layers, block_size, device)
        self.disk = LocalDiskBackend(root)
        self.hot_cache = {}

    def _shape(self, ntok, layers):
        return (layers, ntok // self.block_size, 2, self.block_size, self.hidden)

    def store(self, key, kvcaches, block_ids, ntok):
        obj = self.allocator.allocate(self._shape(ntok, self.num_layers), torch.bfloat16)
        self.gpu_connector.from_gpu(obj, 0, ntok, kvcaches=kvcaches, block_ids=block_ids)
        self.disk.put(key, obj)
        self.hot_cache[key] = obj

    def retrieve(self, key, kvcaches, block_ids, ntok):
        obj = self.hot_cache.get(key)
        if obj is None:
            return False
        self.gpu_connector.to_gpu(obj, 0, ntok, kvcaches=kvcaches, block_ids=block_ids)
        return True

    def store_layer(self, key, kvcaches, block_ids, ntok):
        objs = [
            [self.allocator.allocate(self._shape(ntok, 1)[1:], torch.bfloat16)]
            for _ in range(self.num_layers)
        ]
        gen = self.gpu_connector.batched_from_gpu(
            objs, [0], [ntok], kvcaches=kvcaches, block_ids=block_ids
        )
        for _ in range(self.num_layers):
            yield  # vLLM's save_kv_layer resumes us after each layer
            next(gen)
        next(gen)
        for layer, (obj,) in enumerate(objs):
            self.disk.put(f"{key}-L{layer}", obj)
