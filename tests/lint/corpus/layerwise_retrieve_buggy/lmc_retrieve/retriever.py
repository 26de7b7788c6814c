# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Dict, Generator, List, Optional, Tuple
import logging

# Third Party
import torch

# First Party
from lmc_retrieve.gpu_connector import VLLMBufferLayerwiseGPUConnector
from lmc_retrieve.memory_management import MemoryObj

logger = logging.getLogger(__name__)

# (chunk hash, layer id)
LayerKey = Tuple[str, int]


class LayerwiseRetriever:
    def __init__(self, gpu_connector: VLLMBufferLayerwiseGPUConnector, chunk_size: int):
        self.gpu_connector = gpu_connector
        self.chunk_size = chunk_size
        self.hot_cache: Dict[LayerKey, MemoryObj] = {}

    def _lookup(
        self, chunk_hashes: List[str], num_layers: int
    ) -> Optional[List[List[MemoryObj]]]:
        per_layer = []
        for layer_id in range(num_layers):
            objs = [self.hot_cache.get((h, layer_id)) for h in chunk_hashes]
            if any(obj is None for obj in objs):
                return None
            per_layer.append(objs)
        return per_layer

    def retrieve_layer(
        self,
        chunk_hashes: List[str],
        kvcaches: List[torch.Tensor],
        slot_mapping: torch.Tensor,
    ) -> Generator[int, None, None]:
        """Yields after each layer is queued; the model may run that layer."""
        num_layers = self.gpu_connector.num_layers
        memory_objs = self._lookup(chunk_hashes, num_layers)
        if memory_objs is None:
            logger.info("Retrieve miss for %d chunks", len(chunk_hashes))
            return

        starts = [i * self.chunk_size for i in range(len(chunk_hashes))]
        ends = [start + obj.tensor.shape[1] for start, obj in zip(starts, memory_objs[0])]
        loader = self.gpu_connector.batched_to_gpu(
            starts, ends, kvcaches=kvcaches, slot_mapping=slot_mapping
        )
        next(loader)
        for layer_id in range(num_layers):
            loader.send(memory_objs[layer_id])
            yield layer_id
        loader.close()
        logger.info("Retrieved %d tokens", ends[-1])
