"""Cache engine: chunked store/retrieve between the paged KV cache and disk."""

import torch

from .gpu_connector import CONNECTORS, PinnedAllocator
from .local_disk_backend import LocalDiskBackend


class LMCacheEngine:
    def __init__(self, connector, backend, blocks_per_chunk):
        self.connector = connector
        self.backend = backend
        self.blocks_per_chunk = blocks_per_chunk

    def _chunks(self, token_hashes, block_ids):
        n = self.blocks_per_chunk
        for start in range(0, len(block_ids) - n + 1, n):
            yield token_hashes[start // n], block_ids[start:start + n]

    def store(self, token_hashes, block_ids, kvcaches):
        for key, chunk in self._chunks(token_hashes, block_ids):
            if self.backend.contains(key):
                continue
            obj = self.backend.allocator.allocate(key)
            done = self.connector.from_gpu(obj, chunk, kvcaches=kvcaches, sync=False)
            self.backend.submit_put_task(key, obj, done)

    def retrieve(self, token_hashes, block_ids, kvcaches):
        loaded = 0
        for key, chunk in self._chunks(token_hashes, block_ids):
            if not self.backend.contains(key):
                break
            obj = self.backend.get_blocking(key)
            self.connector.to_gpu(obj, chunk, kvcaches=kvcaches)
            loaded += len(chunk)
        return loaded


def create_engine(config, kvcaches):
    num_layers = len(kvcaches)
    _, _, block_size, heads, dim = kvcaches[0].shape
    shape = (num_layers, 2, config["blocks_per_chunk"], block_size, heads, dim)
    allocator = PinnedAllocator(shape, kvcaches[0].dtype)
    backend = LocalDiskBackend(config["path"], allocator)
    connector = CONNECTORS[config.get("connector", "vllm_paged")](device=kvcaches[0].device)
    return LMCacheEngine(connector, backend, config["blocks_per_chunk"])
