# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Iterator, List, Tuple
import hashlib

# Third Party
import torch

# First Party
from lmc_layerwise.config import LayerwiseConfig
from lmc_layerwise.gpu_connector import VLLMPagedMemLayerwiseGPUConnector
from lmc_layerwise.storage import LocalCPUBackend, MemoryObj


class LayerwiseRetriever:
    def __init__(
        self,
        config: LayerwiseConfig,
        connector: VLLMPagedMemLayerwiseGPUConnector,
        backend: LocalCPUBackend,
    ):
        self.config = config
        self.connector = connector
        self.backend = backend
        self._executor = ThreadPoolExecutor(
            max_workers=config.prefetch_workers, thread_name_prefix="lmc-layer-prefetch"
        )

    def _lookup(self, tokens: torch.Tensor) -> Tuple[List[str], List[int], List[int]]:
        hashes, starts, ends = [], [], []
        prefix = hashlib.sha256()
        token_list = tokens.tolist()
        for start in range(0, len(token_list), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(token_list))
            prefix.update(repr(token_list[start:end]).encode())
            digest = prefix.hexdigest()
            if not self.backend.contains(digest):
                break
            hashes.append(digest)
            starts.append(start)
            ends.append(end)
        return hashes, starts, ends

    def retrieve_layer(
        self, tokens: torch.Tensor, kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor
    ) -> Iterator[int]:
        """Yields the number of retrieved tokens once per layer."""
        hashes, starts, ends = self._lookup(tokens)
        if not hashes:
            for _ in range(self.config.num_layers):
                yield 0
            return

        futures: List[Future[List[MemoryObj]]] = [
            self._executor.submit(self.backend.get_layer, hashes, layer_id)
            for layer_id in range(self.config.num_layers)
        ]
        loader = self.connector.batched_to_gpu(
            starts, ends, kvcaches=kvcaches, slot_mapping=slot_mapping
        )
        next(loader)
        for layer_id in range(self.config.num_layers):
            loader.send(futures[layer_id].result())
            yield ends[-1] - starts[0]
        loader.close()
