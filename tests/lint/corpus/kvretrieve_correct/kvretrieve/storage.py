# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Dict, List, Optional
import logging
import threading

# Third Party
import torch

# First Party
from kvretrieve.config import RetrieveConfig
from kvretrieve.connector import PagedRetrieveConnector

logger = logging.getLogger(__name__)


class MemoryObj:
    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor
        self.pin_count = 0


class LocalCPUBackend:
    def __init__(self):
        self._hot_cache: Dict[str, MemoryObj] = {}
        self._lock = threading.Lock()

    def put(self, key: str, tensor: torch.Tensor) -> None:
        with self._lock:
            self._hot_cache[key] = MemoryObj(tensor.pin_memory())

    def get_and_pin(self, key: str) -> Optional[MemoryObj]:
        with self._lock:
            obj = self._hot_cache.get(key)
            if obj is not None:
                obj.pin_count += 1
            return obj

    def unpin(self, obj: MemoryObj) -> None:
        with self._lock:
            obj.pin_count -= 1


class CacheRetriever:
    def __init__(
        self,
        config: RetrieveConfig,
        backend: LocalCPUBackend,
        connector: PagedRetrieveConnector,
    ):
        self.config = config
        self.backend = backend
        self.connector = connector

    def retrieve(
        self,
        chunk_keys: List[str],
        num_tokens: int,
        kvcaches: List[torch.Tensor],
        slot_mapping: torch.Tensor,
    ) -> int:
        """Loads the longest cached prefix; returns the number of tokens hit."""
        objs: List[MemoryObj] = []
        for key in chunk_keys:
            obj = self.backend.get_and_pin(key)
            if obj is None:
                break
            objs.append(obj)
        if not objs:
            return 0
        size = self.config.chunk_size
        starts = [i * size for i in range(len(objs))]
        ends = [min(s + size, num_tokens) for s in starts]
        try:
            self.connector.batched_to_gpu(
                [o.tensor for o in objs], starts, ends, kvcaches, slot_mapping
            )
        finally:
            for obj in objs:
                self.backend.unpin(obj)
        logger.info("Retrieved %d/%d tokens from local CPU", ends[-1], num_tokens)
        return ends[-1]
