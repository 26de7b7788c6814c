# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Dict, List, Tuple

# Third Party
import torch

# First Party
from lmc_retrieve.gpu_connector import VLLMBufferLayerwiseGPUConnector
from lmc_retrieve.memory_management import MemoryObj, logger

ChunkKey = Tuple[str, int, int]  # (chunk_hash, layer_id, chunk_idx)


class LayerwiseRetrieveEngine:
    def __init__(
        self,
        connector: VLLMBufferLayerwiseGPUConnector,
        chunk_size: int = 256,
    ):
        self.connector = connector
        self.chunk_size = chunk_size
        self.cpu_cache: Dict[ChunkKey, MemoryObj] = {}

    def _lookup(self, prefix_hashes: List[str]) -> Tuple[List[int], List[int]]:
        starts, ends = [], []
        for idx, h in enumerate(prefix_hashes):
            if (h, 0, idx) not in self.cpu_cache:
                break
            starts.append(idx * self.chunk_size)
            ends.append((idx + 1) * self.chunk_size)
        return starts, ends

    def retrieve(
        self,
        prefix_hashes: List[str],
        kvcaches: List[Tuple[torch.Tensor, torch.Tensor]],
        slot_mapping: torch.Tensor,
    ) -> int:
        starts, ends = self._lookup(prefix_hashes)
        if not starts:
            return 0

        gen = self.connector.batched_to_gpu(starts, ends, kvcaches, slot_mapping)
        next(gen)
        for layer_id in range(self.connector.num_layers):
            objs = [
                self.cpu_cache[(prefix_hashes[i], layer_id, i)]
                for i in range(len(starts))
            ]
            gen.send(objs)
        for _ in gen:
            pass

        torch.cuda.current_stream().synchronize()
        logger.info("Retrieved %d chunks", len(starts))
        return ends[-1]
