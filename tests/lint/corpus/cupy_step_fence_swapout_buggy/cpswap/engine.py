"""Decode engine: appends each step's KV into the paged pool and preempts by swapping."""
from dataclasses import dataclass

import cupy as cp
import numpy as np

from .kernels import append_kv
from .pool import DevicePagePool, HostArena
from .swapper import PageSwapper


@dataclass
class EngineConfig:
    num_pages: int = 4096
    num_host_slots: int = 16384
    page_tokens: int = 16
    width: int = 1024


class DecodeEngine:
    def __init__(self, cfg: EngineConfig):
        self.cfg = cfg
        self.compute = cp.cuda.Stream(non_blocking=True)
        self.pool = DevicePagePool(cfg.num_pages, cfg.page_tokens * cfg.width)
        self.arena = HostArena(cfg.num_host_slots, self.pool.page_bytes)
        self.swapper = PageSwapper(self.pool, self.arena, self.compute)
        self.tables = {}        # seq_id -> device pages
        self.lengths = {}       # seq_id -> tokens so far
        self.swapped = {}       # seq_id -> host slots

    def add(self, seq_id):
        self.tables[seq_id] = []
        self.lengths[seq_id] = 0

    def _slot_for(self, seq_id):
        n = self.lengths[seq_id]
        if n % self.cfg.page_tokens == 0:
            self.tables[seq_id].append(self.pool.free.popleft())
        self.lengths[seq_id] = n + 1
        return self.tables[seq_id][-1], n % self.cfg.page_tokens

    def step(self, seq_ids, new_kv):
        """new_kv: (len(seq_ids), width) float16 cupy array computed on self.compute."""
        self.swapper.mark_step()
        placed = [self._slot_for(s) for s in seq_ids]
        with self.compute:
            page_ids = cp.asarray(np.array([p for p, _ in placed], dtype=np.int32))
            slots = cp.asarray(np.array([t for _, t in placed], dtype=np.int32))
            append_kv((len(seq_ids),), (256,),
                      (self.pool.data, page_ids, slots, new_kv, np.int32(len(seq_ids)),
                       np.int32(self.cfg.width), np.int32(self.pool.page_elems)))
        self._maybe_preempt(seq_ids)

    def _maybe_preempt(self, running):
        need = sum(1 for s in running if self.lengths[s] % self.cfg.page_tokens == 0)
        while len(self.pool.free) < need and running:
            victim = running[-1]
            running = running[:-1]
            self.swapped[victim] = self.swapper.swap_out(self.tables.pop(victim))
            need = sum(1 for s in running if self.lengths[s] % self.cfg.page_tokens == 0)

    def resume(self, seq_id):
        self.tables[seq_id] = self.swapper.swap_in(self.swapped.pop(seq_id))
