"""Scheduler side: a hash -> CPU block LRU, and the per-step transfer lists handed to the
workers as CPUOffloadMetadata. A finished request's full blocks are stored before its GPU
blocks are freed (request_finished returns True and the worker reports the request in
finished_sending once its store event has completed)."""

import itertools
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorMetadata


@dataclass
class CPUOffloadMetadata(KVConnectorMetadata):
    load_cpu_blocks: List[int] = field(default_factory=list)
    load_gpu_blocks: List[int] = field(default_factory=list)
    load_event: int = -1
    store_gpu_blocks: List[int] = field(default_factory=list)
    store_cpu_blocks: List[int] = field(default_factory=list)
    store_event: int = -1
    event_to_reqs: Dict[int, List[str]] = field(default_factory=dict)


class CPUOffloadScheduler:
    def __init__(self, num_cpu_blocks: int, block_size: int):
        self.block_size = block_size
        self.cpu_lru: "OrderedDict[int, int]" = OrderedDict()
        self.free_cpu = list(range(num_cpu_blocks))
        self.event_ids = itertools.count()
        self._loads: Dict[str, Tuple[List[int], List[int]]] = {}
        self._stores: Dict[str, List[Tuple[int, int]]] = {}

    def get_num_new_matched_tokens(self, block_hashes: List[int], num_computed_tokens: int) -> int:
        hit = itertools.takewhile(self.cpu_lru.__contains__,
                                  block_hashes[num_computed_tokens // self.block_size:])
        return sum(1 for _ in hit) * self.block_size

    def update_state_after_alloc(self, req_id: str, block_hashes: List[int], gpu_blocks: List[int],
                                 num_external_tokens: int) -> None:
        n = num_external_tokens // self.block_size
        if n:
            self._loads[req_id] = ([self.cpu_lru[h] for h in block_hashes[:n]], gpu_blocks[:n])

    def request_finished(self, req_id: str, block_hashes: List[int], gpu_blocks: List[int]) -> bool:
        pairs = []
        for h, gpu in zip(block_hashes, gpu_blocks):
            if h in self.cpu_lru:
                self.cpu_lru.move_to_end(h)
            elif self.free_cpu or self.cpu_lru:
                cpu = self.free_cpu.pop() if self.free_cpu else self.cpu_lru.popitem(last=False)[1]
                self.cpu_lru[h] = cpu
                pairs.append((gpu, cpu))
        if pairs:
            self._stores[req_id] = pairs
        return bool(pairs)

    def build_connector_meta(self) -> CPUOffloadMetadata:
        meta = CPUOffloadMetadata()
        if self._loads:
            meta.load_event = next(self.event_ids)
            meta.event_to_reqs[meta.load_event] = list(self._loads)
            for cpu, gpu in self._loads.values():
                meta.load_cpu_blocks += cpu
                meta.load_gpu_blocks += gpu
            self._loads.clear()
        if self._stores:
            meta.store_event = next(self.event_ids)
            meta.event_to_reqs[meta.store_event] = list(self._stores)
            for pairs in self._stores.values():
                meta.store_gpu_blocks += [g for g, _ in pairs]
                meta.store_cpu_blocks += [c for _, c in pairs]
            self._stores.clear()
        return meta
