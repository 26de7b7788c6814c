"""Cache engine: store() splits a request's blocks into chunks, gathers each chunk into a new
pinned memory object and hands it to the disk tier. The gathers are left running (sync=False)
so the forward pass is not blocked on them; the disk tier writes from its own threads.

Bug: nothing makes the disk writer wait for the gather into the object it writes. The copies
on the store stream may still be in flight when a pool thread turns the pinned buffer into
bytes, so stale or half-copied KV lands on disk under the chunk's key."""

import hashlib
from typing import List

import torch

from lmc_disk.gpu_connector import VLLMPagedMemGPUConnectorV2
from lmc_disk.local_disk_backend import LocalDiskBackend
from lmc_disk.memory_obj import CacheEngineKey, TensorMemoryObj


class LMCacheEngine:
    def __init__(self, model_name: str, worker_id: int, kvcaches: List[torch.Tensor], block_size: int,
                 chunk_blocks: int, disk_path: str):
        self.model_name = model_name
        self.worker_id = worker_id
        self.chunk_blocks = chunk_blocks
        self.gpu_connector = VLLMPagedMemGPUConnectorV2(kvcaches, block_size)
        self.disk = LocalDiskBackend(disk_path)
        _, _, _, heads, head_size = kvcaches[0].shape
        self.obj_shape = (2, len(kvcaches), chunk_blocks * block_size, heads, head_size)
        self.dtype = kvcaches[0].dtype

    def _chunk_key(self, prefix_hash: str, tokens: List[int]) -> CacheEngineKey:
        digest = hashlib.sha256((prefix_hash + ",".join(map(str, tokens))).encode()).hexdigest()
        return CacheEngineKey(self.model_name, self.worker_id, digest)

    def store(self, tokens: List[int], block_ids: List[int]) -> None:
        tokens_per_chunk = self.chunk_blocks * self.gpu_connector.block_size
        prefix = ""
        for start in range(0, len(block_ids) - self.chunk_blocks + 1, self.chunk_blocks):
            chunk_tokens = tokens[start * self.gpu_connector.block_size :][:tokens_per_chunk]
            key = self._chunk_key(prefix, chunk_tokens)
            prefix = key.chunk_hash
            if self.disk.contains(key):
                continue
            memory_obj = TensorMemoryObj(self.obj_shape, self.dtype)
            self.gpu_connector.from_gpu(memory_obj, block_ids[start : start + self.chunk_blocks], sync=False)
            self.disk.submit_put_task(key, memory_obj)
