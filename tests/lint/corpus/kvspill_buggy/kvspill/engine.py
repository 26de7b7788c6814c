# SPDX-License-Identifier: Apache-2.0
import hashlib
import logging
from typing import Iterator, List, Tuple

import torch

from kvspill.config import SpillConfig
from kvspill.connector import PagedKVStoreConnector, TensorMemoryObj
from kvspill.disk_backend import LocalDiskBackend

logger = logging.getLogger(__name__)


class SpillCacheEngine:
    def __init__(self, config: SpillConfig, connector: PagedKVStoreConnector, backend: LocalDiskBackend):
        self.config = config
        self.connector = connector
        self.backend = backend

    def _chunks(self, tokens: torch.Tensor) -> Iterator[Tuple[str, int, int]]:
        h = hashlib.blake2b(digest_size=16)
        for start in range(0, len(tokens), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(tokens))
            h.update(tokens[start:end].numpy().tobytes())
            yield h.hexdigest(), start, end

    def store(self, tokens: torch.Tensor, kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor) -> int:
        stored = 0
        for key, start, end in self._chunks(tokens):
            if self.backend.contains(key):
                continue
            buf = torch.empty(self.config.chunk_shape(end - start), dtype=self.config.kv_dtype, pin_memory=True)
            memory_obj = TensorMemoryObj(buf, key)
            self.connector.from_gpu(memory_obj, start, end, kvcaches, slot_mapping)
            self.backend.submit_put_task(key, memory_obj)
            stored += 1
        logger.debug("submitted %d chunks for %d tokens", stored, len(tokens))
        return stored

    @torch.inference_mode()
    def forward_and_store(self, model, input_ids, positions, tokens, kvcaches, slot_mapping):
        hidden = model(input_ids, positions, kvcaches, slot_mapping)
        self.store(tokens, kvcaches, slot_mapping)
        return hidden
