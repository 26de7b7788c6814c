# SPDX-License-Identifier: Apache-2.0
import hashlib
import logging
from typing import Generator, List, Tuple

import torch

from layerkv.config import LayerwiseStoreConfig
from layerkv.gpu_connector import LayerwisePagedGPUConnector
from layerkv.memory import LocalCPUBackend, MemoryObj, PinnedMemoryAllocator

logger = logging.getLogger(__name__)


class LayerwiseCacheEngine:
    def __init__(
        self,
        config: LayerwiseStoreConfig,
        connector: LayerwisePagedGPUConnector,
        allocator: PinnedMemoryAllocator,
        backend: LocalCPUBackend,
    ):
        self.config = config
        self.connector = connector
        self.allocator = allocator
        self.backend = backend

    def _chunk(self, tokens: torch.Tensor) -> Tuple[List[str], List[int], List[int]]:
        keys, starts, ends = [], [], []
        prefix = hashlib.sha256()
        size = self.config.chunk_size
        for start in range(0, len(tokens), size):
            end = min(start + size, len(tokens))
            if end - start < size and not self.config.save_unfull_chunk:
                break
            prefix.update(tokens[start:end].numpy().tobytes())
            keys.append(prefix.hexdigest())
            starts.append(start)
            ends.append(end)
        return keys, starts, ends

    def store_layer(self, tokens: torch.Tensor, slot_mapping: torch.Tensor) -> Generator[None, None, None]:
        keys, starts, ends = self._chunk(tokens)
        if not keys:
            return
        memory_objs: List[List[MemoryObj]] = []
        for _ in range(self.config.num_layers):
            layer_objs = []
            for start, end in zip(starts, ends):
                obj = self.allocator.allocate(self.config.chunk_shape(end - start), self.config.kv_dtype)
                if obj is None:
                    for held in layer_objs + [o for row in memory_objs for o in row]:
                        held.ref_count_down()
                    return
                layer_objs.append(obj)
            memory_objs.append(layer_objs)

        mem_gen = self.connector.batched_from_gpu(memory_objs, starts, ends, slot_mapping)
        for _ in range(self.config.num_layers):
            next(mem_gen)
            yield
        next(mem_gen)

        for layer_id, layer_objs in enumerate(memory_objs):
            self.backend.batched_put([(key, layer_id) for key in keys], layer_objs)
        logger.debug("stored %d chunks x %d layers", len(keys), self.config.num_layers)
        yield
