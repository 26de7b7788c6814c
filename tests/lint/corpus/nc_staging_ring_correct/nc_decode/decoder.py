"""Decode step: sample on the compute stream, copy ids out on a copy stream,
and let a reader thread deliver tokens while the next step is queued."""

import threading
from queue import Queue
from typing import Callable, List, Optional

import cupy as cp

from .kernels import launch_greedy
from .settings import MAX_BATCH, RING_SLOTS
from .staging import PinnedStagingRing, StagingSlot


class TokenReader:
    def __init__(self, ring: PinnedStagingRing, on_tokens: Callable[[List[str], List[int]], None]):
        self.ring = ring
        self.on_tokens = on_tokens
        self.pending: "Queue[Optional[StagingSlot]]" = Queue()
        self.thread = threading.Thread(target=self._run, name="token-reader", daemon=True)
        self.thread.start()

    def submit(self, slot: StagingSlot) -> None:
        self.pending.put(slot)

    def _run(self) -> None:
        while True:
            slot = self.pending.get()
            if slot is None:
                return
            slot.done.synchronize()
            tokens = slot.host[: slot.num_rows].tolist()
            rids = slot.request_ids
            self.ring.release(slot)
            self.on_tokens(rids, tokens)

    def close(self) -> None:
        self.pending.put(None)
        self.thread.join()


class AsyncGreedyDecoder:
    def __init__(self, lm_head_weight: cp.ndarray, on_tokens: Callable[[List[str], List[int]], None]):
        self.lm_head_weight = lm_head_weight  # [vocab, hidden]
        self.compute_stream = cp.cuda.Stream(non_blocking=True)
        self.copy_stream = cp.cuda.Stream(non_blocking=True)
        self.ring = PinnedStagingRing(RING_SLOTS, MAX_BATCH)
        self.reader = TokenReader(self.ring, on_tokens)

    def step(self, request_ids: List[str], hidden: cp.ndarray) -> None:
        """``hidden`` was produced on ``self.compute_stream`` by the model."""
        n = len(request_ids)
        with self.compute_stream:
            logits = hidden @ self.lm_head_weight.T
            d_ids = cp.empty((n,), dtype=cp.int32)
        launch_greedy(logits, d_ids, self.compute_stream)
        sampled = self.compute_stream.record()

        slot = self.ring.acquire()
        slot.num_rows = n
        slot.request_ids = list(request_ids)
        slot.device_ref = d_ids
        self.copy_stream.wait_event(sampled)
        d_ids.get(stream=self.copy_stream, out=slot.host[:n], blocking=False)
        self.ring.commit(slot, self.copy_stream)
        self.reader.submit(slot)
