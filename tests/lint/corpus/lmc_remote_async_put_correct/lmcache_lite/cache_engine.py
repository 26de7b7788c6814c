"""Cache engine: split the request into chunks, copy each chunk off the GPU and hand the chunk
objects to the storage manager in one batch."""

from typing import List

import torch

from lmcache_lite.gpu_connector import VLLMFlatGPUConnector
from lmcache_lite.memory import PinMemoryAllocator
from lmcache_lite.storage import RemoteBackend, StorageManager


class LMCacheEngine:
    def __init__(self, num_layers: int, hidden: int, chunk_size: int, remote_url: str,
                 dtype=torch.bfloat16):
        host, port = remote_url.rsplit(":", 1)
        self.chunk_size = chunk_size
        self.dtype = dtype
        self.gpu_connector = VLLMFlatGPUConnector(num_layers, hidden)
        self.allocator = PinMemoryAllocator(2 << 30)
        self.storage_manager = StorageManager(RemoteBackend(host, int(port)))

    def _chunk_keys(self, token_hashes: List[str], num_tokens: int):
        for i, start in enumerate(range(0, num_tokens, self.chunk_size)):
            yield token_hashes[i], start, min(start + self.chunk_size, num_tokens)

    def store(self, token_hashes: List[str], kvcache: torch.Tensor, slot_mapping: torch.Tensor) -> None:
        num_tokens = slot_mapping.shape[0]
        keys, objs = [], []
        for key, start, end in self._chunk_keys(token_hashes, num_tokens):
            shape = (self.gpu_connector.num_layers, 2, end - start, self.gpu_connector.hidden)
            obj = self.allocator.allocate(shape, self.dtype)
            if obj is None:
                break  # out of host memory: store the prefix that fits
            # one stream sync per chunk would serialise the copies: sync once for the batch
            self.gpu_connector.from_gpu(obj, start, end, kvcache=kvcache, slot_mapping=slot_mapping, sync=False)
            keys.append(key)
            objs.append(obj)
        ready = torch.cuda.Event()
        ready.record(self.gpu_connector.store_stream)
        self.storage_manager.batched_put(keys, objs, ready)
