# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, Generator, List
import hashlib
import logging
import os

# Third Party
import torch

# First Party
from lmc_layerwise.config import LayerwiseConnectorConfig
from lmc_layerwise.gpu_connector import FlatLayerwiseGPUConnector
from lmc_layerwise.memory import MemoryObj, PinnedMemoryAllocator

logger = logging.getLogger(__name__)


class LocalDiskBackend:
    def __init__(self, path: str, max_workers: int = 2):
        self.path = path
        self.hot_cache: Dict[str, MemoryObj] = {}
        self._executor = ThreadPoolExecutor(max_workers=max_workers)
        os.makedirs(path, exist_ok=True)

    def batched_put(self, keys: List[str], objs: List[MemoryObj]) -> None:
        for key, obj in zip(keys, objs, strict=True):
            self.hot_cache[key] = obj
            self._executor.submit(self._write, key, obj)

    def _write(self, key: str, obj: MemoryObj) -> None:
        torch.save(obj.tensor, os.path.join(self.path, f"{key}.pt"))


class LayerwiseCacheEngine:
    def __init__(self, config: LayerwiseConnectorConfig, backend: LocalDiskBackend):
        self.config = config
        self.gpu_connector = FlatLayerwiseGPUConnector(config)
        self.allocator = PinnedMemoryAllocator(config.dtype)
        self.backend = backend

    def _chunk(self, tokens: torch.Tensor):
        """Tokens are host-resident (vLLM hands the prompt ids on the CPU)."""
        size = self.config.chunk_size
        for start in range(0, len(tokens), size):
            end = min(start + size, len(tokens))
            digest = hashlib.sha256(tokens[:end].numpy().tobytes()).hexdigest()
            yield digest[:32], start, end

    def store_layer(self, tokens: torch.Tensor, **kwargs) -> Generator[None, None, None]:
        chunks = list(self._chunk(tokens))
        starts = [s for _, s, _ in chunks]
        ends = [e for _, _, e in chunks]
        num_layers = self.config.num_layers
        memory_objs = [
            self.allocator.batched_allocate(
                [self.gpu_connector.get_shape(e - s) for s, e in zip(starts, ends)]
            )
            for _ in range(num_layers)
        ]
        keys = [[f"{k}@{layer}" for k, _, _ in chunks] for layer in range(num_layers)]

        mem_obj_generator = self.gpu_connector.batched_from_gpu(
            memory_objs, starts, ends, **kwargs
        )
        for layer_id in range(num_layers):
            yield
            next(mem_obj_generator)
            if layer_id > 0:
                self.backend.batched_put(keys[layer_id - 1], memory_objs[layer_id - 1])
        yield
        next(mem_obj_generator)
        self.backend.batched_put(keys[num_layers - 1], memory_objs[num_layers - 1])
        logger.info("Stored %d chunks across %d layers", len(chunks), num_layers)
