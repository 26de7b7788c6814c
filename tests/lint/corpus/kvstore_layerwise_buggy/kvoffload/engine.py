# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generator, List
import hashlib
import logging
import os

# Third Party
import torch

# First Party
from kvoffload.config import ConnectorConfig
from kvoffload.connector import LayerwiseGPUConnector
from kvoffload.memory import MemoryObj, PinnedMemoryAllocator

logger = logging.getLogger(__name__)


class LocalDiskBackend:
    def __init__(self, path: str, max_workers: int):
        os.makedirs(path, exist_ok=True)
        self.path = path
        self._executor = ThreadPoolExecutor(
            max_workers=max_workers, thread_name_prefix="kvoffload-disk"
        )

    def _put(self, memory_obj: MemoryObj) -> None:
        torch.save(memory_obj.tensor, os.path.join(self.path, memory_obj.key + ".pt"))
        memory_obj.ref_count_down()

    def submit_put(self, memory_obj: MemoryObj) -> Future:
        return self._executor.submit(self._put, memory_obj)


class LayerwiseCacheEngine:
    def __init__(self, config: ConnectorConfig):
        self.config = config
        self.gpu_connector = LayerwiseGPUConnector(config)
        self.allocator = PinnedMemoryAllocator(config.hidden_dim_size, config.kv_dtype)
        self.backend = LocalDiskBackend(config.local_disk_path, config.max_disk_workers)

    def _chunk_keys(self, tokens: torch.Tensor) -> List[str]:
        keys, prefix = [], hashlib.sha256()
        for start in range(0, len(tokens), self.config.chunk_size):
            prefix.update(tokens[start : start + self.config.chunk_size].numpy().tobytes())
            keys.append(prefix.hexdigest()[:32])
        return keys

    def store_layer(self, tokens: torch.Tensor, **kwargs) -> Generator[None, None, None]:
        chunk = self.config.chunk_size
        starts = list(range(0, len(tokens), chunk))
        ends = [min(s + chunk, len(tokens)) for s in starts]
        keys = self._chunk_keys(tokens)
        memory_objs = self.allocator.allocate_layers(
            keys, [e - s for s, e in zip(starts, ends)], self.config.num_layers
        )
        gen = self.gpu_connector.batched_from_gpu(memory_objs, starts, ends, **kwargs)
        for _ in range(self.config.num_layers):
            next(gen)
            yield
        next(gen)
        for layer_objs in memory_objs:
            for memory_obj in layer_objs:
                self.backend.submit_put(memory_obj)
        logger.info("Stored %d chunks x %d layers", len(keys), self.config.num_layers)
        yield
