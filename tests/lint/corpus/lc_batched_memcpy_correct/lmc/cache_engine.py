"""LMCacheEngine.store for whole chunks: one batched offload, then async puts."""

import hashlib
from typing import List

import torch

from .gpu_connector import BatchedPagedGPUConnector
from .memory_management import PinnedCPUAllocator
from .storage_backend import LocalDiskBackend
from .transfer_config import CHUNK_SIZE, LOCAL_DISK_PATH, PIN_POOL_BYTES


class LMCacheEngine:
    def __init__(self, connector: BatchedPagedGPUConnector, kv_dtype: torch.dtype = torch.bfloat16):
        self.connector = connector
        self.kv_dtype = kv_dtype
        self.blocks_per_chunk = CHUNK_SIZE // connector.block_size
        slab = connector.chunk_shape(self.blocks_per_chunk).numel() * 2
        self.allocator = PinnedCPUAllocator(PIN_POOL_BYTES, slab)
        self.backend = LocalDiskBackend(LOCAL_DISK_PATH)

    @torch.inference_mode()
    def store(self, tokens: List[int], kvcaches: List[torch.Tensor], block_table: List[int]) -> int:
        keys, objs, tables = [], [], []
        prefix = hashlib.sha256()
        for start in range(0, len(tokens) - CHUNK_SIZE + 1, CHUNK_SIZE):
            prefix.update(str(tokens[start : start + CHUNK_SIZE]).encode())
            key = prefix.hexdigest()
            if self.backend.contains(key):
                continue
            obj = self.allocator.allocate(self.connector.chunk_shape(self.blocks_per_chunk), self.kv_dtype)
            if obj is None:
                break
            first = start // self.connector.block_size
            keys.append(key)
            objs.append(obj)
            tables.append(block_table[first : first + self.blocks_per_chunk])
        if not objs:
            return 0
        ready = self.connector.batched_from_gpu(objs, tables, kvcaches)
        self.backend.batched_submit_put_task(keys, objs, ready)
        for obj in objs:
            obj.ref_count_down()
        return len(objs) * CHUNK_SIZE
