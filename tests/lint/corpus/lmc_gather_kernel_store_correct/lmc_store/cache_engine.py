"""Store path of the cache engine, in the shape of LMCacheEngine.store: split the tokens into
chunks, gather every chunk into a pinned memory object, then hand them to the storage manager."""

import hashlib
from typing import Iterator, List, Tuple

import torch

from lmc_store.gpu_connector import VLLMPagedMemGPUConnector
from lmc_store.memory_management import PinMemoryAllocator
from lmc_store.storage import StorageManager


class ChunkedTokenDatabase:
    def __init__(self, chunk_size: int, model_name: str):
        self.chunk_size = chunk_size
        self.model_name = model_name

    def process_tokens(self, tokens: List[int]) -> Iterator[Tuple[int, int, Tuple[str, int, str]]]:
        prefix = hashlib.sha256()
        for start in range(0, len(tokens), self.chunk_size):
            end = min(start + self.chunk_size, len(tokens))
            prefix.update(repr(tokens[start:end]).encode())
            yield start, end, (self.model_name, start, prefix.hexdigest())


class LMCacheEngine:
    def __init__(self, connector: VLLMPagedMemGPUConnector, chunk_size: int, dtype: torch.dtype, pool_bytes: int):
        self.gpu_connector = connector
        self.token_database = ChunkedTokenDatabase(chunk_size, "model")
        self.storage_manager = StorageManager(PinMemoryAllocator(pool_bytes))
        self.dtype = dtype

    @torch.inference_mode()
    def store(self, tokens: List[int], kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor) -> int:
        keys, objs = [], []
        for start, end, key in self.token_database.process_tokens(tokens):
            if self.storage_manager.local_cpu_backend.contains(key):
                continue
            obj = self.storage_manager.allocate(self.gpu_connector.get_shape(end - start), self.dtype)
            if obj is None:
                break
            self.gpu_connector.from_gpu(obj, start, end, kvcaches=kvcaches, slot_mapping=slot_mapping)
            keys.append(key)
            objs.append(obj)
        self.gpu_connector.wait_for_store()
        self.storage_manager.batched_put(keys, objs)
        return len(keys)
