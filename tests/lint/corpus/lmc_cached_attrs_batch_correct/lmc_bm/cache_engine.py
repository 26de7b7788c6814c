"""Store / retrieve of whole chunks through the batch-copy connector and a CPU hot cache."""

from collections import OrderedDict
from typing import List

import torch

from lmc_bm.gpu_connector import PagedBatchCopyConnector
from lmc_bm.memory_management import MemoryObj, PinMemoryAllocator


class LMCacheEngine:
    def __init__(self, connector: PagedBatchCopyConnector, num_layers: int, blocks_per_chunk: int,
                 block_size: int, num_heads: int, head_size: int, num_slots: int, dtype=torch.bfloat16):
        self.connector = connector
        self.blocks_per_chunk = blocks_per_chunk
        slot_shape = (num_layers, 2, blocks_per_chunk, block_size, num_heads, head_size)
        self.allocator = PinMemoryAllocator(num_slots, slot_shape, dtype)
        self.hot_cache: "OrderedDict[str, MemoryObj]" = OrderedDict()

    def store(self, chunk_hashes: List[str], block_ids: List[int]) -> int:
        objs, hashes, chunks = [], [], []
        for i, chunk_hash in enumerate(chunk_hashes):
            if chunk_hash in self.hot_cache:
                continue
            obj = self.allocator.allocate()
            if obj is None:
                break
            objs.append(obj)
            hashes.append(chunk_hash)
            chunks.append(block_ids[i * self.blocks_per_chunk : (i + 1) * self.blocks_per_chunk])
        if not objs:
            return 0
        self.connector.batched_from_gpu(objs, chunks)
        # visible to lookups only once the bytes have landed
        self.connector.store_done.synchronize()
        for chunk_hash, obj in zip(hashes, objs):
            self.hot_cache[chunk_hash] = obj
        return len(objs)

    def retrieve(self, chunk_hashes: List[str], block_ids: List[int]) -> int:
        hits = 0
        for i, chunk_hash in enumerate(chunk_hashes):
            obj = self.hot_cache.get(chunk_hash)
            if obj is None:
                break
            self.hot_cache.move_to_end(chunk_hash)
            self.connector.to_gpu(obj, block_ids[i * self.blocks_per_chunk : (i + 1) * self.blocks_per_chunk])
            hits += 1
        return hits
