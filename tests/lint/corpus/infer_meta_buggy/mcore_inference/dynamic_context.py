import logging
from typing import List

import torch

from .batch_copy import snapshot_block_tables, snapshot_request_metadata
from .constants import KV_BLOCK_SIZE_TOKENS, MAX_BLOCKS_PER_REQUEST, MAX_REQUESTS
from .cuda_utils import current_stream_handle

logger = logging.getLogger(__name__)


class DynamicInferenceContext:
    """Device-resident request bookkeeping for the dynamic batching engine."""

    def __init__(self, device: torch.device, total_kv_blocks: int):
        self.device = device
        self.total_kv_blocks = total_kv_blocks
        self.total_request_count = 0
        i32 = dict(dtype=torch.int32, device=device)
        self.request_query_lengths = torch.zeros(MAX_REQUESTS, **i32)
        self.request_kv_length_offsets = torch.zeros(MAX_REQUESTS, **i32)
        self.request_kv_block_counts = torch.zeros(MAX_REQUESTS, **i32)
        self.request_to_kv_block_ids = torch.full((MAX_REQUESTS, MAX_BLOCKS_PER_REQUEST), -1, **i32)
        self.block_allocator_cursor = torch.zeros(1, **i32)

        pinned = dict(dtype=torch.int32, pin_memory=True)
        self.host_query_lengths = torch.zeros(MAX_REQUESTS, **pinned)
        self.host_kv_length_offsets = torch.zeros(MAX_REQUESTS, **pinned)
        self.host_block_ids = torch.zeros((MAX_REQUESTS, MAX_BLOCKS_PER_REQUEST), **pinned)

        # Bookkeeping runs on its own stream; batched copies reject the legacy default stream.
        self.stream = torch.cuda.Stream(device=device)
        self.stream.wait_stream(torch.cuda.current_stream(device))

    def add_request(self, prompt_len: int) -> int:
        idx = self.total_request_count
        self.request_query_lengths[idx] = prompt_len
        self.total_request_count += 1
        return idx

    def update_requests(self) -> None:
        """Advance every active request by its query length and grow block tables."""
        n = self.total_request_count
        if n == 0:
            return
        offsets = self.request_kv_length_offsets[:n]
        offsets += self.request_query_lengths[:n]
        self.request_query_lengths[:n].fill_(1)

        needed = (offsets + KV_BLOCK_SIZE_TOKENS - 1) // KV_BLOCK_SIZE_TOKENS
        grow = (needed - self.request_kv_block_counts[:n]).clamp_(min=0)
        first_new = (self.block_allocator_cursor + torch.cumsum(grow, 0) - grow) % self.total_kv_blocks
        cols = self.request_kv_block_counts[:n].long().clamp_(max=MAX_BLOCKS_PER_REQUEST - 1).unsqueeze(1)
        table = self.request_to_kv_block_ids[:n]
        current = table.gather(1, cols).squeeze(1)
        table.scatter_(1, cols, torch.where(grow > 0, first_new, current).to(torch.int32).unsqueeze(1))
        self.request_kv_block_counts[:n] += grow
        self.block_allocator_cursor += grow.sum()

    def sync_metadata_to_host(self) -> None:
        n = self.total_request_count
        if n == 0:
            return
        stream = current_stream_handle()
        snapshot_request_metadata(
            [self.host_query_lengths[:n], self.host_kv_length_offsets[:n]],
            [self.request_query_lengths[:n], self.request_kv_length_offsets[:n]],
            stream,
        )
        snapshot_block_tables([self.host_block_ids[:n]], [self.request_to_kv_block_ids[:n]], stream)
        torch.cuda.current_stream().synchronize()

    def host_sequence_lengths(self) -> List[int]:
        n = self.total_request_count
        return (self.host_kv_length_offsets[:n] + self.host_query_lengths[:n]).tolist()
