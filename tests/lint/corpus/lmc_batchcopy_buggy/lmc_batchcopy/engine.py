# SPDX-License-Identifier: Apache-2.0
# Standard
from collections import deque
from typing import Deque, Dict, List, Sequence, Tuple
import logging
import zlib

# Third Party
import torch

# First Party
from lmc_batchcopy.constants import MAX_INFLIGHT_OFFLOADS
from lmc_batchcopy.offloader import BatchedKVOffloader, OffloadHandle

logger = logging.getLogger(__name__)


class BatchedStoreEngine:
    def __init__(self, device: torch.device, chunk_size: int = 256):
        self.chunk_size = chunk_size
        self.offloader = BatchedKVOffloader(device)
        self.hot_cache: Dict[str, Tuple[torch.Tensor, int]] = {}
        self._inflight: Deque[Tuple[List[str], OffloadHandle]] = deque()

    def store(self, keys: Sequence[str], kv_layers: Sequence[torch.Tensor], num_tokens: int) -> None:
        spans = [(s, min(s + self.chunk_size, num_tokens)) for s in range(0, num_tokens, self.chunk_size)]
        assert len(spans) == len(keys)
        handle = self.offloader.offload(kv_layers, spans)
        self._inflight.append((list(keys), handle))
        while len(self._inflight) > MAX_INFLIGHT_OFFLOADS:
            self._retire_one()

    def _retire_one(self) -> None:
        keys, handle = self._inflight.popleft()
        for key, host in zip(keys, handle.wait()):
            crc = zlib.crc32(host.numpy().tobytes())
            self.hot_cache[key] = (host, crc)

    def flush(self) -> None:
        while self._inflight:
            self._retire_one()
        logger.info("hot cache holds %d chunks", len(self.hot_cache))
