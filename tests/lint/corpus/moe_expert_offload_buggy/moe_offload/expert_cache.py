"""A few GPU expert slots in front of pinned host copies of every expert, with LRU eviction."""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable

import torch

from .config import ExpertOffloadConfig
from .cudart_copy import memcpy_h2d_async


@dataclass
class CacheStats:
    hits: int = 0
    loads: int = 0


class ExpertSlotCache:
    def __init__(self, config: ExpertOffloadConfig, host_w13: list[torch.Tensor],
                 host_w2: list[torch.Tensor], device: torch.device) -> None:
        self.config = config
        self.host_w13 = [w.contiguous().pin_memory() for w in host_w13]
        self.host_w2 = [w.contiguous().pin_memory() for w in host_w2]
        h, i = config.hidden_size, config.intermediate_size
        self.w13 = torch.empty(config.num_gpu_slots, 2 * i, h, dtype=config.dtype, device=device)
        self.w2 = torch.empty(config.num_gpu_slots, h, i, dtype=config.dtype, device=device)
        self._slot_of: OrderedDict[int, int] = OrderedDict()
        self._free = list(range(config.num_gpu_slots - 1, -1, -1))
        self._load_stream = torch.cuda.Stream(device=device)
        self.stats = CacheStats()

    def _evict(self, protected: set[int]) -> int:
        for expert, slot in self._slot_of.items():
            if expert not in protected:
                del self._slot_of[expert]
                return slot
        raise RuntimeError("every GPU slot holds an expert needed by this batch")

    def ensure_loaded(self, experts: Iterable[int]) -> dict[int, int]:
        wanted = [int(e) for e in experts]
        if len(wanted) > self.config.num_gpu_slots:
            raise RuntimeError(f"batch routes to {len(wanted)} experts, only {self.config.num_gpu_slots} slots")
        protected = set(wanted)
        to_load: list[tuple[int, int]] = []
        for expert in wanted:
            if expert in self._slot_of:
                self._slot_of.move_to_end(expert)
                self.stats.hits += 1
                continue
            slot = self._free.pop() if self._free else self._evict(protected)
            self._slot_of[expert] = slot
            to_load.append((expert, slot))

        if to_load:
            stream = self._load_stream
            for expert, slot in to_load:
                memcpy_h2d_async(self.w13[slot], self.host_w13[expert], stream)
                memcpy_h2d_async(self.w2[slot], self.host_w2[expert], stream)
            done = stream.record_event()
            torch.cuda.current_stream().wait_event(done)
            self.stats.loads += len(to_load)
        return {expert: self._slot_of[expert] for expert in wanted}
