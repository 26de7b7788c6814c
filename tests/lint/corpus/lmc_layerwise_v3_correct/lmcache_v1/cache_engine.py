# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Generator, List
import hashlib
import logging

# Third Party
import torch

# First Party
from .config import LMCacheEngineConfig
from .gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from .memory_obj import allocate_layer_objs
from .storage_backend import LocalDiskBackend

logger = logging.getLogger(__name__)


class LMCacheEngine:
    def __init__(
        self,
        config: LMCacheEngineConfig,
        gpu_connector: VLLMPagedMemLayerwiseGPUConnector,
        num_heads: int,
        head_dim: int,
        kv_dtype: torch.dtype,
    ):
        self.config = config
        self.gpu_connector = gpu_connector
        self.storage = LocalDiskBackend(config)
        self.obj_shape = gpu_connector.get_shape(num_heads, head_dim)
        self.kv_dtype = kv_dtype

    def _chunk_keys(self, tokens: List[int]) -> List[str]:
        keys, prefix = [], hashlib.sha256()
        size = self.config.chunk_size
        for start in range(0, len(tokens) - size + 1, size):
            prefix.update(str(tokens[start : start + size]).encode())
            keys.append(prefix.hexdigest()[:32])
        return keys

    def store_layer(
        self, tokens: List[int], block_ids: List[int], **kwargs
    ) -> Generator[None, None, None]:
        keys = self._chunk_keys(tokens)
        if not keys:
            for _ in range(self.gpu_connector.num_layers + 1):
                yield
            return
        memory_objs = allocate_layer_objs(
            keys, self.gpu_connector.num_layers, self.obj_shape, self.kv_dtype
        )
        mem_obj_generator = self.gpu_connector.batched_from_gpu(
            memory_objs, block_ids[: len(keys)], **kwargs
        )
        for _ in range(self.gpu_connector.num_layers):
            next(mem_obj_generator)
            yield
        next(mem_obj_generator)
        for layer_objs in memory_objs:
            self.storage.batched_submit_put_task(layer_objs)
        yield
