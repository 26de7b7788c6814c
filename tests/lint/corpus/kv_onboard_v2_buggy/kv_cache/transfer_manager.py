import logging
from typing import List

import torch

from .block_pool import BlockPool, KVCacheBlock

logger = logging.getLogger(__name__)


class KVCacheTransferManager:
    """Moves blocks between the primary and secondary pools on a dedicated stream."""

    def __init__(self, pool: BlockPool):
        self._pool = pool
        self._device = pool.device
        self._device_module = torch.get_device_module(pool.device)
        self._stream = self._device_module.Stream(pool.device)
        self._pending_events: List[torch.Event] = []

    def _compute_stream(self) -> torch.Stream:
        return torch.accelerator.current_stream(self._device)

    def _record(self) -> None:
        event = torch.Event(device=self._device)
        event.record(self._stream)
        self._pending_events.append(event)

    def offload(self, block: KVCacheBlock, secondary_index: int) -> None:
        self._stream.wait_stream(self._compute_stream())
        with self._device_module.stream(self._stream):
            src = self._pool.primary_pool[block.memory_pool_block_index]
            self._pool.secondary_pool[secondary_index].copy_(src, non_blocking=True)
            self._record()

    def onboard(self, secondary_index: int, block: KVCacheBlock) -> None:
        with self._device_module.stream(self._stream):
            dst = self._pool.primary_pool[block.memory_pool_block_index]
            # expect: KVG004
            dst.copy_(self._pool.secondary_pool[secondary_index], non_blocking=True)
            self._record()

    def sync_transfers(self) -> None:
        compute = self._compute_stream()
        for event in self._pending_events:
            compute.wait_event(event)
        self._pending_events.clear()
