"""Cache engine: chunk a request's KV into memory objects and push them to the remote tier."""

from typing import List

import torch

from lmc_remote.gpu_connector import PagedGPUConnector
from lmc_remote.memory import PinnedAllocator
from lmc_remote.remote_backend import RemoteBackend

CHUNK_BLOCKS = 16


class CacheEngine:
    def __init__(self, kv_caches: List[torch.Tensor], block_size: int, url: str):
        host, port = url.rsplit(":", 1)
        self.connector = PagedGPUConnector(kv_caches, block_size)
        self.allocator = PinnedAllocator(1 << 30)
        self.backend = RemoteBackend(host, int(port))
        self.kv_shape = kv_caches[0].shape[1:]
        self.num_layers = len(kv_caches)
        self.dtype = kv_caches[0].dtype

    def store(self, request_id: str, block_ids: List[int]) -> None:
        for start in range(0, len(block_ids), CHUNK_BLOCKS):
            chunk = block_ids[start:start + CHUNK_BLOCKS]
            key = f"{request_id}@{start}"
            shape = (self.num_layers, len(chunk)) + tuple(self.kv_shape)
            obj = self.allocator.allocate(shape, self.dtype, key)
            self.connector.from_gpu(obj, chunk)
            fut = self.backend.submit_put_task(key, obj)
            fut.add_done_callback(lambda _f, o=obj: self.allocator.free(o))
