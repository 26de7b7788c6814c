"""Minimal executor loop: onboard reused prefixes, forward, retire requests."""

from dataclasses import dataclass, field
from typing import Callable, Dict, List

import torch

from .block_manager import BlockManager
from .constants import TOKENS_PER_BLOCK
from .transfer import KVCacheTransferManager


@dataclass
class LlmRequest:
    request_id: int
    block_hashes: List[int]
    max_new_tokens: int
    generated: int = 0
    tokens: List[int] = field(default_factory=list)

    def is_finished(self) -> bool:
        return self.generated >= self.max_new_tokens


class PyExecutor:
    def __init__(self, model: Callable, block_manager: BlockManager,
                 transfer: KVCacheTransferManager):
        self.model = model
        self.block_manager = block_manager
        self.transfer = transfer
        self.active: List[LlmRequest] = []
        self._request_events: Dict[int, torch.cuda.Event] = {}

    def _schedule(self, new_requests: List[LlmRequest]) -> None:
        for req in new_requests:
            reused = self.block_manager.onboard_prefix(req.request_id, req.block_hashes)
            missing = len(req.block_hashes) - reused
            self.block_manager.allocate(req.request_id, missing + 1)
            self.active.append(req)
        self.transfer.sync_transfers()

    def _forward_step(self) -> torch.Tensor:
        logits = self.model(self.active)  # writes KV blocks on the compute stream
        for req in self.active:
            event = torch.cuda.Event()
            event.record()
            self._request_events[req.request_id] = event
        return logits

    def _handle_finished(self) -> None:
        still_active = []
        for req in self.active:
            if not req.is_finished():
                still_active.append(req)
                continue
            ready = self._request_events.pop(req.request_id, None)
            self.block_manager.release_and_offload(req.request_id, req.block_hashes, ready)
        self.active = still_active

    def step(self, new_requests: List[LlmRequest]) -> torch.Tensor:
        self._schedule(new_requests)
        logits = self._forward_step()
        for req in self.active:
            req.generated += 1
            if req.generated % TOKENS_PER_BLOCK == 0:
                self.block_manager.allocate(req.request_id, 1)
        self._handle_finished()
        return logits
