"""KV cache manager with onboarding of reused prefixes from the host pool. Onboarding
copies are issued by a worker of a thread pool on a dedicated stream so the executor
loop never blocks on them; the forward waits for each request's onboarding event."""

import threading
from dataclasses import dataclass, field
from multiprocessing.pool import ThreadPool
from typing import Dict, List

import torch

from trtllm_kv.block_pool import GpuBlockPool, HostBlockPool, KvCacheConfig


@dataclass
class OnboardTicket:
    request_id: int
    host_blocks: List[int]
    gpu_blocks: List[int]
    done: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    issued: threading.Event = field(default_factory=threading.Event)


class KVCacheManager:
    def __init__(self, cfg: KvCacheConfig):
        self.primary = GpuBlockPool(cfg)
        self.secondary = HostBlockPool(cfg)
        self._onboard_stream = torch.cuda.Stream()
        self._workers = ThreadPool(processes=1)
        self._pending: Dict[int, OnboardTicket] = {}

    def prepare_resources(self, context_requests) -> None:
        for req in context_requests:
            host_blocks = self.secondary.lookup(req.prefix_hash)
            if not host_blocks:
                continue
            gpu_blocks = self.primary.allocate(len(host_blocks))
            if gpu_blocks is None:
                continue
            req.block_ids = gpu_blocks
            ticket = OnboardTicket(req.request_id, host_blocks, gpu_blocks)
            self._pending[req.request_id] = ticket
            self._workers.apply_async(self._onboard, (ticket,))

    def _onboard(self, ticket: OnboardTicket) -> None:
        with torch.cuda.stream(self._onboard_stream):
            for h, g in zip(ticket.host_blocks, ticket.gpu_blocks):
                # expect: KVG004
                self.primary.pool[g].copy_(self.secondary.pool[h], non_blocking=True)
            ticket.done.record(self._onboard_stream)
        ticket.issued.set()

    def wait_onboarded(self, request_ids: List[int]) -> None:
        stream = torch.cuda.current_stream()
        for rid in request_ids:
            ticket = self._pending.pop(rid, None)
            if ticket is None:
                continue
            ticket.issued.wait()
            stream.wait_event(ticket.done)

    def free_resources(self, request) -> None:
        self.primary.free(request.block_ids)
