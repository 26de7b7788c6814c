from __future__ import annotations

import logging
from typing import Callable, Optional

import cupy
import numpy as np

from .config import (HEAD_DIM, KV_DTYPE, LOGGER_NAME, NUM_KV_HEADS, RING_DEPTH, TOKENS_PER_BLOCK,
                     StreamSet)
from .ring import PinnedRing, PinnedSlot
from .transfer import stage_out

logger = logging.getLogger(LOGGER_NAME)

BlockSink = Callable[[int, int, np.ndarray], None]


class KVStager:
    """Owns the paged KV pool of one worker and stages full blocks to host."""

    def __init__(
        self,
        num_layers: int,
        num_blocks: int,
        streams: Optional[StreamSet] = None,
        sink: Optional[BlockSink] = None,
    ) -> None:
        self.streams = streams or StreamSet.create()
        self.num_layers = num_layers
        self.host_blocks: dict[tuple[int, int], np.ndarray] = {}
        self.sink: BlockSink = sink or self._keep
        block_shape = (2, NUM_KV_HEADS, TOKENS_PER_BLOCK, HEAD_DIM)
        with self.streams.compute:
            self.kv = [cupy.zeros((num_blocks, *block_shape), dtype=KV_DTYPE) for _ in range(num_layers)]
        self.ring = PinnedRing(RING_DEPTH, block_shape, KV_DTYPE)

    def _keep(self, layer: int, block: int, data: np.ndarray) -> None:
        self.host_blocks[(layer, block)] = data

    def _retire(self, slot: PinnedSlot) -> None:
        slot.done.synchronize()
        self.sink(slot.layer, slot.block, slot.host.copy())
        slot.done = None

    def append(self, layer: int, block: int, offset: int, k: cupy.ndarray, v: cupy.ndarray) -> None:
        with self.streams.compute:
            self.kv[layer][block, 0, :, offset] = k
            self.kv[layer][block, 1, :, offset] = v

    def evict(self, layer: int, block: int, after: cupy.cuda.Event) -> PinnedSlot:
        slot = self.ring.next_slot()
        if slot.done is not None:
            self._retire(slot)
        self.streams.d2h.wait_event(after)
        stage_out(self.kv[layer][block], slot, self.streams.d2h)
        slot.layer, slot.block = layer, block
        if logger.isEnabledFor(logging.DEBUG):
            # expect: KVG003
            absmax = float(np.abs(slot.host).max())
            logger.debug("staged layer=%d block=%d absmax=%.4f", layer, block, absmax)
        return slot

    def flush(self) -> int:
        pending = self.ring.pending()
        for slot in pending:
            self._retire(slot)
        return len(pending)
