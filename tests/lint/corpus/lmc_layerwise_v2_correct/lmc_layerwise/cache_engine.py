import logging
from typing import Dict, Generator, Iterator, List, Optional

import torch

from lmc_layerwise.config import LMCacheEngineConfig
from lmc_layerwise.gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from lmc_layerwise.memory_management import MemoryObj, PinnedMemoryAllocator

logger = logging.getLogger(__name__)


class LMCacheLayerwiseEngine:
    def __init__(self, config: LMCacheEngineConfig, num_layers: int, kv_shape_per_token):
        self.config = config
        self.num_layers = num_layers
        self.kv_shape_per_token = kv_shape_per_token
        self.allocator = PinnedMemoryAllocator(int(config.max_local_cpu_size * 1024**3))
        self.gpu_connector = VLLMPagedMemLayerwiseGPUConnector(num_layers, config.block_size)
        self.hot_cache: Dict[str, List[MemoryObj]] = {}

    def _chunk_bounds(self, num_tokens: int):
        starts = list(range(0, num_tokens, self.config.chunk_size))
        ends = [min(s + self.config.chunk_size, num_tokens) for s in starts]
        if not self.config.save_unfull_chunk and ends and ends[-1] - starts[-1] < self.config.chunk_size:
            starts, ends = starts[:-1], ends[:-1]
        return starts, ends

    def store_layer(
        self, keys: List[str], kvcaches: List[torch.Tensor], block_ids: List[int], num_tokens: int, dtype
    ) -> Generator[None, None, None]:
        starts, ends = self._chunk_bounds(num_tokens)
        memory_objs: List[List[MemoryObj]] = []
        for _ in range(self.num_layers):
            layer_objs: List[MemoryObj] = []
            for s, e in zip(starts, ends):
                obj = self.allocator.allocate((2, e - s, *self.kv_shape_per_token), dtype)
                if obj is None:
                    logger.warning("Local CPU buffer is full, skip storing")
                    return
                layer_objs.append(obj)
            memory_objs.append(layer_objs)

        mem_gen = self.gpu_connector.batched_from_gpu(
            memory_objs, starts, ends, kvcaches=kvcaches, block_ids=block_ids, sync=True
        )
        for _ in range(self.num_layers):
            next(mem_gen)
            yield
        next(mem_gen)
        for chunk_idx, key in enumerate(keys[: len(starts)]):
            self.hot_cache[key] = [memory_objs[l][chunk_idx] for l in range(self.num_layers)]
        yield

    def lookup(self, key: str) -> Optional[List[MemoryObj]]:
        return self.hot_cache.get(key)


class LMCacheLayerwiseConnectorWorker:
    """Drives the layerwise storer from vLLM's per-layer save hooks."""

    def __init__(self, engine: LMCacheLayerwiseEngine, kvcaches: List[torch.Tensor]):
        self.engine = engine
        self.kvcaches = kvcaches
        self.layerwise_storer: Optional[Iterator[None]] = None

    def start_save(self, keys: List[str], block_ids: List[int], num_tokens: int) -> None:
        self.layerwise_storer = self.engine.store_layer(
            keys, self.kvcaches, block_ids, num_tokens, self.kvcaches[0].dtype
        )

    def save_kv_layer(self, layer_name: str) -> None:
        # Called right after the attention of ``layer_name`` has been enqueued.
        if self.layerwise_storer is not None:
            next(self.layerwise_storer, None)

    def wait_for_save(self) -> None:
        if self.layerwise_storer is not None:
            for _ in self.layerwise_storer:
                pass
            self.layerwise_storer = None
