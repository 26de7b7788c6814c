# SPDX-License-Identifier: Apache-2.0
import hashlib
import logging
from dataclasses import dataclass
from typing import Generator, List, Optional, Tuple

import torch

from lmcache_cp.config import LayerwiseRetrieveConfig
from lmcache_cp.gpu_connector import CupyBufferLayerwiseGPUConnector
from lmcache_cp.memory import LocalCPUBackend, MemoryObj

logger = logging.getLogger(__name__)


@dataclass
class RetrieveRequest:
    req_id: str
    token_ids: List[int]
    slot_mapping: torch.Tensor  # device tensor, one slot per token


class LMCacheEngine:
    def __init__(self, config: LayerwiseRetrieveConfig, backend: LocalCPUBackend,
                 gpu_connector: CupyBufferLayerwiseGPUConnector):
        self.config = config
        self.backend = backend
        self.gpu_connector = gpu_connector

    def _chunk_keys(self, tokens: List[int]) -> List[Tuple[str, int, int]]:
        out, prefix = [], ""
        for start in range(0, len(tokens), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(tokens))
            prefix = hashlib.sha256((prefix + str(tokens[start:end])).encode()).hexdigest()
            out.append((f"{self.config.model_name}@{prefix}", start, end))
        return out

    def _hit_prefix(self, tokens: List[int]) -> List[Tuple[str, int, int]]:
        hits = []
        for key, start, end in self._chunk_keys(tokens):
            if not self.backend.contains(f"{key}@L{self.config.num_layers - 1}"):
                break
            hits.append((key, start, end))
        return hits

    def retrieve_layer(self, requests: List[RetrieveRequest],
                       kvcaches: List[torch.Tensor]) -> Optional[Generator[None, None, None]]:
        """One generator for the whole step; advanced once per layer by the model runner."""
        keys, starts, ends, slots = [], [], [], []
        base = 0
        for req in requests:
            hits = self._hit_prefix(req.token_ids)
            for key, start, end in hits:
                keys.append(key)
                starts.append(base + start)
                ends.append(base + end)
            if hits:
                slots.append(req.slot_mapping[: hits[-1][2]])
                base += hits[-1][2]
        if not keys or base > self.config.max_tokens:
            return None

        memory_objs: List[List[MemoryObj]] = [
            [self.backend.get(f"{key}@L{layer_id}") for key in keys]
            for layer_id in range(self.config.num_layers)
        ]
        logger.info("Retrieving %d tokens for %d requests", base, len(requests))
        return self.gpu_connector.batched_to_gpu(
            memory_objs, starts, ends, kvcaches=kvcaches, slot_mapping=torch.cat(slots)
        )


class LMCacheLayerwiseLoader:
    """Worker-side hooks: start_load_kv before forward, wait_for_layer_load per layer."""

    def __init__(self, engine: LMCacheEngine, kvcaches: List[torch.Tensor]):
        self.engine = engine
        self.kvcaches = kvcaches
        self.retriever: Optional[Generator[None, None, None]] = None

    def start_load_kv(self, requests: List[RetrieveRequest]) -> None:
        self.retriever = self.engine.retrieve_layer(requests, self.kvcaches)
        if self.retriever is not None:
            next(self.retriever)

    def wait_for_layer_load(self, layer_id: int) -> None:
        if self.retriever is None:
            return
        next(self.retriever)
        if layer_id == self.engine.config.num_layers - 1:
            self.retriever = None
