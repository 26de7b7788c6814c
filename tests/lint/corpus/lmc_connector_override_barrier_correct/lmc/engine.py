"""Store path of the cache engine, as SGLang's LMCache integration drives it after each
prefill: chunk the request's tokens, allocate pinned memory objects, copy the KV out of the
device pool and hand the objects to the storage manager."""

import hashlib
from typing import Dict, List

import torch

from lmc.sglang_connector import SGLangPagedGPUConnector
from lmc.memory import MemoryObj, PinMemoryAllocator


class LocalCPUStorage:
    def __init__(self):
        self.objs: Dict[str, MemoryObj] = {}

    def batched_put(self, keys: List[str], objs: List[MemoryObj]) -> None:
        for key, obj in zip(keys, objs):
            self.objs[key] = obj


class LMCacheEngine:
    def __init__(self, num_layers: int, hidden_dim: int, page_size: int,
                 chunk_size: int = 256, cpu_bytes: int = 8 << 30):
        self.chunk_size = chunk_size
        self.connector = SGLangPagedGPUConnector(num_layers, hidden_dim, page_size)
        self.allocator = PinMemoryAllocator(cpu_bytes)
        self.storage = LocalCPUStorage()

    def _keys(self, token_ids: List[int]) -> List[str]:
        keys, h = [], hashlib.sha256()
        for s in range(0, len(token_ids), self.chunk_size):
            h.update(str(token_ids[s:s + self.chunk_size]).encode())
            keys.append(h.hexdigest())
        return keys

    def store(self, token_ids: List[int], slot_list: List[int], k_buffers, v_buffers,
              dtype=torch.bfloat16) -> int:
        starts = list(range(0, len(token_ids), self.chunk_size))
        ends = [min(s + self.chunk_size, len(token_ids)) for s in starts]
        objs = [self.allocator.allocate(self.connector.get_shape(e - s), dtype)
                for s, e in zip(starts, ends)]
        if any(obj is None for obj in objs):
            return 0  # out of pinned memory: skip this request
        self.connector.batched_from_gpu(objs, starts, ends, slot_list=slot_list,
                                        k_buffers=k_buffers, v_buffers=v_buffers)
        self.storage.batched_put(self._keys(token_ids), objs)
        return len(token_ids)
