from __future__ import annotations

from typing import List

import torch

from lmcache.logging import init_logger

from .gpu_connector import VLLMPagedMemGPUConnectorV2
from .local_disk_backend import LocalDiskBackend
from .memory_obj import MemoryObj, MemoryObjMetadata

logger = init_logger(__name__)


class LMCacheEngine:
    def __init__(
        self,
        model_name: str,
        worker_id: int,
        chunk_blocks: int,
        block_shape: tuple,
        dtype: torch.dtype,
        gpu_connector: VLLMPagedMemGPUConnectorV2,
        backend: LocalDiskBackend,
    ):
        self.model_name = model_name
        self.worker_id = worker_id
        self.chunk_blocks = chunk_blocks
        self.block_shape = block_shape
        self.dtype = dtype
        self.gpu_connector = gpu_connector
        self.backend = backend

    def _allocate(self, num_blocks: int) -> MemoryObj:
        shape = (self.gpu_connector.num_layers, num_blocks, *self.block_shape)
        tensor = torch.empty(shape, dtype=self.dtype, pin_memory=True)
        meta = MemoryObjMetadata(tensor.shape, tensor.dtype, tensor.nbytes)
        return MemoryObj(tensor=tensor, metadata=meta)

    def store(
        self, token_ids: List[int], block_ids: List[int], kvcaches: List[torch.Tensor]
    ) -> int:
        bs = self.gpu_connector.block_size
        stored = 0
        for start in range(0, len(block_ids), self.chunk_blocks):
            chunk = block_ids[start : start + self.chunk_blocks]
            end_tok = min((start + len(chunk)) * bs, len(token_ids))
            key = (self.model_name, self.worker_id, hash(tuple(token_ids[:end_tok])))
            if self.backend.contains(key):
                continue
            memory_obj = self._allocate(len(chunk))
            self.gpu_connector.from_gpu(memory_obj, chunk, kvcaches)
            self.backend.submit_put_task(key, memory_obj)
            memory_obj.ref_count_down()
            stored += len(chunk)
        logger.info("Stored %d blocks", stored)
        return stored
