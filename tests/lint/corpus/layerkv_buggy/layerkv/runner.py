# SPDX-License-Identifier: Apache-2.0
import logging
from typing import List, Sequence

import torch

from layerkv.engine import LayerwiseCacheEngine
from layerkv.gpu_connector import LayerwisePagedGPUConnector

logger = logging.getLogger(__name__)


class OffloadingModelRunner:
    """Runs decoder layers and interleaves layer-wise KV offload with them."""

    def __init__(
        self,
        embed: torch.nn.Module,
        layers: Sequence[torch.nn.Module],
        engine: LayerwiseCacheEngine,
        connector: LayerwisePagedGPUConnector,
    ):
        self.embed = embed
        self.layers = list(layers)
        self.engine = engine
        self.connector = connector

    @torch.inference_mode()
    def execute(
        self,
        input_ids: torch.Tensor,
        positions: torch.Tensor,
        tokens: torch.Tensor,
        slot_mapping: torch.Tensor,
        kvcaches: List[torch.Tensor],
    ) -> torch.Tensor:
        self.connector.bind_kvcaches(kvcaches)
        hidden = self.embed(input_ids)
        store = self.engine.store_layer(tokens, slot_mapping)
        for layer_id, layer in enumerate(self.layers):
            # attention writes this layer's K/V into kvcaches[layer_id]
            hidden = layer(positions, hidden, kvcaches[layer_id], slot_mapping)
            next(store, None)
        for _ in store:
            pass
        return hidden
