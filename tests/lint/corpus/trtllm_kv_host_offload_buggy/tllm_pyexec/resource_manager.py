from __future__ import annotations

import logging
from collections import deque

import torch

from .llm_request import LlmRequest, ScheduledRequests

logger = logging.getLogger("tllm_pyexec")


class KVCacheManager:
    """Paged KV pool on the GPU with a pinned host pool for paused requests."""

    def __init__(self, num_layers: int, num_kv_heads: int, head_dim: int, tokens_per_block: int,
                 num_blocks: int, num_host_blocks: int, dtype: torch.dtype = torch.float16,
                 device: torch.device | str = "cuda") -> None:
        self.device = torch.device(device)
        self.tokens_per_block = tokens_per_block
        block = (num_layers, 2, tokens_per_block, num_kv_heads, head_dim)
        self.primary_pool = torch.zeros((num_blocks, *block), dtype=dtype, device=self.device)
        self.secondary_pool = torch.empty((num_host_blocks, *block), dtype=dtype, pin_memory=True)
        self._free_primary = deque(range(num_blocks))
        self._free_secondary = deque(range(num_host_blocks))
        self._transfer_stream = torch.cuda.Stream(device=self.device)

    def _wait_for_model(self) -> None:
        self._transfer_stream.wait_stream(torch.cuda.default_stream(self.device))

    def _publish(self) -> None:
        torch.cuda.current_stream(self.device).wait_stream(self._transfer_stream)

    def offload_request(self, req: LlmRequest) -> None:
        self._wait_for_model()
        host_ids = [self._free_secondary.popleft() for _ in req.block_ids]
        with torch.cuda.stream(self._transfer_stream):
            for src, dst in zip(req.block_ids, host_ids):
                # expect: KVG001
                self.secondary_pool[dst].copy_(self.primary_pool[src], non_blocking=True)
        self._publish()
        self._free_primary.extend(req.block_ids)
        req.block_ids, req.host_block_ids = [], host_ids
        logger.debug("offloaded request %d (%d blocks)", req.request_id, len(host_ids))

    def onboard_request(self, req: LlmRequest) -> None:
        self._wait_for_model()
        dev_ids = [self._free_primary.popleft() for _ in req.host_block_ids]
        with torch.cuda.stream(self._transfer_stream):
            for src, dst in zip(req.host_block_ids, dev_ids):
                # expect: KVG004
                self.primary_pool[dst].copy_(self.secondary_pool[src], non_blocking=True)
        self._publish()
        self._free_secondary.extend(req.host_block_ids)
        req.block_ids, req.host_block_ids = dev_ids, []

    def prepare_resources(self, scheduled: ScheduledRequests) -> None:
        for req in scheduled.paused_requests:
            self.offload_request(req)
        for req in scheduled.resumed_requests:
            self.onboard_request(req)
        for req in scheduled.all_requests:
            needed = (req.prompt_len + len(req.tokens)) // self.tokens_per_block + 1
            while len(req.block_ids) < needed:
                req.block_ids.append(self._free_primary.popleft())

    def free_resources(self, req: LlmRequest) -> None:
        self._free_primary.extend(req.block_ids)
        req.block_ids = []
