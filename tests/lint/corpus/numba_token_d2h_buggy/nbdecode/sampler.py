from __future__ import annotations

import dataclasses
import logging
import queue

import numpy as np
from numba import cuda

from .constants import HOST_SLOTS, MAX_BATCH, THREADS_PER_BLOCK, TOKEN_DTYPE
from .kernels import greedy_argmax
from .stream_utils import order_streams

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class PendingTokens:
    step: int
    slot: int
    request_ids: list[int]
    host_ids: np.ndarray
    done: object
    device_ids: object


class GreedySampler:
    """Picks next tokens on the compute stream and ships them to pinned host slots."""

    def __init__(self, compute_stream, max_batch: int = MAX_BATCH) -> None:
        self.compute = compute_stream
        self.copy = cuda.stream()
        self._host = [cuda.pinned_array(max_batch, dtype=TOKEN_DTYPE) for _ in range(HOST_SLOTS)]
        self._done = [cuda.event(timing=False) for _ in range(HOST_SLOTS)]
        self.free_slots: "queue.Queue[int]" = queue.Queue()
        for i in range(HOST_SLOTS):
            self.free_slots.put(i)
        self._step = 0

    def sample_async(self, d_logits, d_temperature, request_ids: list[int]) -> PendingTokens:
        n = len(request_ids)
        slot = self.free_slots.get()
        d_ids = cuda.device_array(n, dtype=TOKEN_DTYPE, stream=self.compute)
        grid = (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        greedy_argmax[grid, THREADS_PER_BLOCK, self.compute](d_logits, d_temperature, d_ids)

        order_streams(self.compute, self.copy)
        host_view = self._host[slot][:n]
        # expect: KVG001
        d_ids.copy_to_host(host_view, stream=self.copy)
        self._done[slot].record(self.copy)

        self._step += 1
        return PendingTokens(self._step, slot, list(request_ids), host_view, self._done[slot], d_ids)
