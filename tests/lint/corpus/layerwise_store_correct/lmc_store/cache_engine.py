# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Dict, Generator, List, Tuple
import hashlib
import logging

# Third Party
import torch

# First Party
from lmc_store.config import LMCacheEngineConfig
from lmc_store.gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from lmc_store.memory_management import MemoryObj, PinnedMemoryAllocator

logger = logging.getLogger(__name__)

# (model name, chunk hash, layer id)
CacheEngineKey = Tuple[str, str, int]


class LMCacheEngine:
    def __init__(
        self,
        config: LMCacheEngineConfig,
        model_name: str,
        gpu_connector: VLLMPagedMemLayerwiseGPUConnector,
    ):
        self.config = config
        self.model_name = model_name
        self.gpu_connector = gpu_connector
        max_bytes = int(config.max_local_cpu_size * (1 << 30))
        self.allocator = PinnedMemoryAllocator(max_bytes)
        self.local_cpu_backend: Dict[CacheEngineKey, MemoryObj] = {}

    def _chunk_ranges(self, num_tokens: int) -> List[Tuple[int, int]]:
        chunk_size = self.config.chunk_size
        ranges = []
        for start in range(0, num_tokens, chunk_size):
            end = min(start + chunk_size, num_tokens)
            if end - start < chunk_size and not self.config.save_unfull_chunk:
                break
            ranges.append((start, end))
        return ranges

    def _chunk_hashes(self, tokens: List[int], ranges: List[Tuple[int, int]]) -> List[str]:
        hashes = []
        prefix = hashlib.sha256(self.model_name.encode())
        for start, end in ranges:
            prefix.update(",".join(map(str, tokens[start:end])).encode())
            hashes.append(prefix.hexdigest())
        return hashes

    def store_layer(
        self,
        tokens: List[int],
        kvcaches: List[torch.Tensor],
        slot_mapping: torch.Tensor,
    ) -> Generator[None, None, None]:
        """Store KV cache layer by layer; advance once after each model layer."""
        ranges = self._chunk_ranges(len(tokens))
        hashes = self._chunk_hashes(tokens, ranges)
        starts = [start for start, _ in ranges]
        ends = [end for _, end in ranges]
        num_layers = self.gpu_connector.num_layers

        memory_objs: List[List[MemoryObj]] = []
        for _ in range(num_layers):
            memory_objs.append(
                [
                    self.allocator.allocate(
                        self.gpu_connector.get_shape(end - start),
                        self.gpu_connector.dtype,
                    )
                    for start, end in ranges
                ]
            )

        mem_obj_generator = self.gpu_connector.batched_from_gpu(
            memory_objs, starts, ends, kvcaches=kvcaches, slot_mapping=slot_mapping
        )
        for _ in range(num_layers):
            next(mem_obj_generator)
            yield
        next(mem_obj_generator)

        for layer_id, layer_objs in enumerate(memory_objs):
            for chunk_hash, memory_obj in zip(hashes, layer_objs):
                key = (self.model_name, chunk_hash, layer_id)
                self.local_cpu_backend[key] = memory_obj
        logger.info("Stored %d tokens in %d chunks", len(tokens), len(ranges))
        yield
