"""GPU cache of vision-encoder outputs with a pinned-host spill tier."""

from __future__ import annotations

import logging
from collections import OrderedDict

import cupy as cp
import cupyx

from mm_cache.entries import CacheEntry, Location

logger = logging.getLogger(__name__)


class EncoderOutputCache:
    def __init__(self, gpu_budget_tokens: int) -> None:
        self.gpu_budget_tokens = gpu_budget_tokens
        self._entries: OrderedDict[str, CacheEntry] = OrderedDict()
        self._gpu_tokens = 0
        self._spill_stream = cp.cuda.Stream(non_blocking=True)
        self._reload_stream = cp.cuda.Stream(non_blocking=True)
        # Spilled device buffers stay referenced until their copy-out has finished.
        self._inflight: list[tuple[cp.cuda.Event, cp.ndarray]] = []

    def __contains__(self, mm_hash: str) -> bool:
        return mm_hash in self._entries

    def put(self, mm_hash: str, embeddings: cp.ndarray, ready: cp.cuda.Event) -> None:
        self._make_room(embeddings.shape[0])
        self._entries[mm_hash] = CacheEntry(
            mm_hash=mm_hash,
            num_tokens=embeddings.shape[0],
            location=Location.GPU,
            device=embeddings,
            ready=ready,
        )
        self._gpu_tokens += embeddings.shape[0]

    def get(self, mm_hash: str) -> tuple[cp.ndarray, cp.cuda.Event]:
        entry = self._entries[mm_hash]
        self._entries.move_to_end(mm_hash)
        if entry.location is Location.CPU:
            self._reload(entry)
        return entry.device, entry.ready

    def _make_room(self, num_tokens: int) -> None:
        for entry in list(self._entries.values()):
            if self._gpu_tokens + num_tokens <= self.gpu_budget_tokens:
                return
            if entry.location is Location.GPU:
                self._spill(entry)
        if self._gpu_tokens + num_tokens > self.gpu_budget_tokens:
            raise MemoryError(f"encoder cache cannot fit {num_tokens} tokens")

    def _reap_inflight(self) -> None:
        while self._inflight and self._inflight[0][0].done:
            self._inflight.pop(0)

    def _spill(self, entry: CacheEntry) -> None:
        self._reap_inflight()
        host = cupyx.empty_pinned(entry.device.shape, dtype=entry.device.dtype)
        # The embeddings are produced on the encoder (or reload) stream.
        self._spill_stream.wait_event(entry.ready)
        entry.device.get(stream=self._spill_stream, out=host, blocking=False)
        spilled = cp.cuda.Event(disable_timing=True)
        spilled.record(self._spill_stream)
        self._inflight.append((spilled, entry.device))
        entry.device, entry.host, entry.spilled = None, host, spilled
        entry.location = Location.CPU
        self._gpu_tokens -= entry.num_tokens
        logger.debug("spilled %s (%d tokens) to host", entry.mm_hash, entry.num_tokens)

    def _reload(self, entry: CacheEntry) -> None:
        self._make_room(entry.num_tokens)
        self._reload_stream.wait_event(entry.spilled)
        with self._reload_stream:
            dst = cp.empty(entry.host.shape, dtype=entry.host.dtype)
        dst.set(entry.host, stream=self._reload_stream)
        ready = cp.cuda.Event(disable_timing=True)
        ready.record(self._reload_stream)
        entry.device, entry.host, entry.ready, entry.spilled = dst, None, ready, None
        entry.location = Location.GPU
        self._gpu_tokens += entry.num_tokens
