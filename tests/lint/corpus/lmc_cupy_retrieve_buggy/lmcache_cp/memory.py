# SPDX-License-Identifier: Apache-2.0
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

import cupyx
import numpy as np

logger = logging.getLogger(__name__)


@dataclass
class MemoryObj:
    array: np.ndarray  # pinned, [num_tokens, 2, hidden_dim]

    @property
    def num_tokens(self) -> int:
        return self.array.shape[0]


class LocalCPUBackend:
    def __init__(self):
        self.hot_cache: "OrderedDict[str, MemoryObj]" = OrderedDict()
        self.cpu_lock = threading.Lock()

    def put(self, key: str, kv_chunk: np.ndarray) -> None:
        pinned = cupyx.empty_pinned(kv_chunk.shape, dtype=kv_chunk.dtype)
        pinned[...] = kv_chunk
        with self.cpu_lock:
            self.hot_cache[key] = MemoryObj(pinned)

    def contains(self, key: str) -> bool:
        with self.cpu_lock:
            return key in self.hot_cache

    def get(self, key: str) -> Optional[MemoryObj]:
        with self.cpu_lock:
            memory_obj = self.hot_cache.get(key)
            if memory_obj is not None:
                self.hot_cache.move_to_end(key)
            return memory_obj
