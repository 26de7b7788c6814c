"""Device-resident LRU cache in front of a host embedding table, filled by prefetch."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from .config import CacheConfig
from .lru import LRUSlotMap, coalesce_runs


@dataclass
class PrefetchedBatch:
    slots: torch.Tensor
    ready: torch.cuda.Event


class CachedEmbeddingTable:
    def __init__(self, config: CacheConfig, host_table: torch.Tensor, device: torch.device) -> None:
        if host_table.shape != (config.num_embeddings, config.embedding_dim):
            raise ValueError("host table shape does not match the config")
        self.config = config
        self.device = device
        self.host_table = host_table
        self.weights = torch.zeros(config.cache_slots, config.embedding_dim, device=device)
        self._lru = LRUSlotMap(config.cache_slots)
        rows = (config.max_ids_per_batch, config.embedding_dim)
        self._load_staging = torch.empty(rows, dtype=host_table.dtype, pin_memory=True)
        self._writeback_staging = torch.empty(rows, dtype=host_table.dtype, pin_memory=True)
        self._streams = {"prefetch": torch.cuda.Stream(device=device)}
        self._inflight: tuple[list[int], torch.cuda.Event] | None = None

    def _drain_previous(self) -> None:
        if self._inflight is None:
            return
        evict_ids, ready = self._inflight
        # both staging buffers are reused by this prefetch
        ready.synchronize()
        if evict_ids:
            n = len(evict_ids)
            self.host_table.index_copy_(0, torch.as_tensor(evict_ids), self._writeback_staging[:n])
        self._inflight = None

    def _writeback_rows(self, evict_slots: list[int]) -> None:
        for slot, off, n in coalesce_runs(evict_slots):
            # expect: KVG001
            self._writeback_staging.narrow(0, off, n).copy_(self.weights.narrow(0, slot, n), non_blocking=True)

    def _load_rows(self, load_slots: list[int]) -> None:
        for slot, off, n in coalesce_runs(load_slots):
            # expect: KVG004
            self.weights.narrow(0, slot, n).copy_(self._load_staging.narrow(0, off, n), non_blocking=True)

    def prefetch(self, ids: np.ndarray) -> PrefetchedBatch:
        self._drain_previous()
        plan = self._lru.plan(ids)
        n_load = len(plan.load_ids)
        if n_load:
            torch.index_select(
                self.host_table, 0, torch.as_tensor(plan.load_ids), out=self._load_staging[:n_load]
            )

        stream = self._streams["prefetch"]
        with torch.cuda.stream(stream):
            if plan.evict_slots:
                self._writeback_rows(plan.evict_slots)
            if n_load:
                self._load_rows(plan.load_slots)
            slots = torch.from_numpy(plan.slots).pin_memory().to(self.device, non_blocking=True)
            ready = stream.record_event()
        self._inflight = (plan.evict_ids, ready)
        return PrefetchedBatch(slots=slots, ready=ready)

    def lookup(self, batch: PrefetchedBatch) -> torch.Tensor:
        compute = torch.cuda.current_stream(self.device)
        compute.wait_event(batch.ready)
        batch.slots.record_stream(compute)
        return F.embedding(batch.slots, self.weights)

    @torch.no_grad()
    def apply_sparse_grad(self, batch: PrefetchedBatch, grad: torch.Tensor, lr: float) -> None:
        self.weights.index_add_(0, batch.slots, grad, alpha=-lr)
