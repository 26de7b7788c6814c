from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generator, List, Optional

import torch

from lmcache.logging import init_logger

from .cache_engine import LMCacheEngine

logger = init_logger(__name__)


@dataclass
class ReqMeta:
    req_id: str
    token_ids: List[int]
    block_ids: List[int]
    save: bool = True


@dataclass
class LMCacheConnectorMetadata:
    requests: List[ReqMeta] = field(default_factory=list)


class LMCacheConnectorV1Impl:
    def __init__(self, engine: LMCacheEngine, kv_caches: List[torch.Tensor]):
        self.lmcache_engine = engine
        self.kv_caches = kv_caches
        self._metadata: Optional[LMCacheConnectorMetadata] = None
        self.layerwise_storers: Optional[List[Generator[None, None, None]]] = None
        self.current_layer = 0

    def bind_connector_metadata(self, metadata: LMCacheConnectorMetadata) -> None:
        self._metadata = metadata

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata) -> None:
        """Called right after the attention layer ``layer_name`` wrote its KV."""
        assert self._metadata is not None
        if self.layerwise_storers is None:
            self.layerwise_storers = [
                self.lmcache_engine.store_layer(r.token_ids, r.block_ids, self.kv_caches)
                for r in self._metadata.requests
                if r.save
            ]
            self.current_layer = 0
        for storer in self.layerwise_storers:
            next(storer)
        self.current_layer += 1

    def wait_for_save(self) -> None:
        if self.layerwise_storers is None:
            return
        for storer in self.layerwise_storers:
            next(storer)
        logger.debug("saved %d requests", len(self.layerwise_storers))
        self.layerwise_storers = None
