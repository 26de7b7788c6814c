"""Decode scheduler: one token per step, retires finished sequences to host."""

import hashlib
import threading
from dataclasses import dataclass
from typing import Dict, List, Tuple

import cupy

from .cache import PagedKVCache
from .swapper import SwapOutJob, SwapWorker


@dataclass
class Sequence:
    seq_id: int
    blocks: List[int]
    remaining: int


class HostPrefixStore:
    def __init__(self, cache: PagedKVCache):
        self.cache = cache
        self._lock = threading.Lock()
        self._entries: Dict[int, Tuple[List[int], cupy.cuda.Event]] = {}

    def register(self, seq_id: int, slots: List[int], done: cupy.cuda.Event) -> None:
        with self._lock:
            self._entries[seq_id] = (slots, done)

    def digest(self, seq_id: int) -> str:
        with self._lock:
            slots, done = self._entries[seq_id]
        done.synchronize()
        return hashlib.sha1(self.cache.host_blocks[slots].tobytes()).hexdigest()


class Scheduler:
    def __init__(self, cache: PagedKVCache, decoder):
        self.cache = cache
        self.decoder = decoder
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.prefix_store = HostPrefixStore(cache)
        self.worker = SwapWorker(cache, self.prefix_store.register)
        self.worker.start()

    def _retire(self, seq: Sequence, ready: cupy.cuda.Event) -> None:
        slots = [self.cache.free_host.pop() for _ in seq.blocks]
        self.worker.jobs.put(SwapOutJob(seq.seq_id, list(seq.blocks), slots, ready))

    def step(self, batch: List[Sequence]) -> None:
        last = [seq for seq in batch if seq.remaining == 1]
        ready = self.compute.record()
        with self.compute:
            self.decoder.decode_step(self.cache, batch)  # appends K/V for every seq
        for seq in batch:
            seq.remaining -= 1
        for seq in last:
            self._retire(seq, ready)
