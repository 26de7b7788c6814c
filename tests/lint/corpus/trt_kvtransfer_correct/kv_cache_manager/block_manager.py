"""Block bookkeeping with a host-side prefix cache for reuse."""

from collections import deque
from typing import Deque, Dict, List, Optional

import torch

from .transfer import KVCacheTransferManager


class BlockManager:
    def __init__(self, num_primary: int, num_secondary: int, transfer: KVCacheTransferManager):
        self._free_primary: Deque[int] = deque(range(num_primary))
        self._free_secondary: Deque[int] = deque(range(num_secondary))
        self._request_blocks: Dict[int, List[int]] = {}
        self._host_cache: Dict[int, int] = {}  # block hash -> secondary block
        self._transfer = transfer

    def allocate(self, request_id: int, num_blocks: int) -> List[int]:
        blocks = [self._free_primary.popleft() for _ in range(num_blocks)]
        self._request_blocks.setdefault(request_id, []).extend(blocks)
        return blocks

    def release_and_offload(self, request_id: int, block_hashes: List[int],
                            ready: Optional[torch.cuda.Event] = None) -> None:
        blocks = self._request_blocks.pop(request_id, [])
        pairs = []
        for block, block_hash in zip(blocks, block_hashes):
            if block_hash in self._host_cache or not self._free_secondary:
                continue
            secondary = self._free_secondary.popleft()
            self._host_cache[block_hash] = secondary
            pairs.append((block, secondary))
        if pairs:
            self._transfer.offload(request_id, pairs, ready)
        self._free_primary.extend(blocks)

    def onboard_prefix(self, request_id: int, block_hashes: List[int]) -> int:
        hits = []
        for block_hash in block_hashes:
            if block_hash not in self._host_cache:
                break
            hits.append(self._host_cache[block_hash])
        if hits:
            primary = self.allocate(request_id, len(hits))
            self._transfer.onboard(list(zip(primary, hits)))
        return len(hits)
