"""Stores paged KV blocks into host chunks on a dedicated store stream."""

from typing import List

import torch

from blockxfer.ids import to_block_id_list


class BlockStoreConnector:
    def __init__(self, num_blocks: int, block_bytes: int, device: torch.device) -> None:
        self.kv_cache = torch.zeros(num_blocks, block_bytes, dtype=torch.uint8, device=device)
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)

    def _stage_block_ids(self, block_ids: List[int]) -> torch.Tensor:
        return torch.tensor(block_ids, dtype=torch.int64, device=self.device)

    def store(self, block_ids: List[int], host_chunk: torch.Tensor) -> torch.cuda.Event:
        self.store_stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self.store_stream):
            staged = self._stage_block_ids(block_ids)
            ordered = to_block_id_list(staged)
            for slot, block in enumerate(ordered):
                host_chunk[slot].copy_(self.kv_cache[block], non_blocking=True)
            done = torch.cuda.Event()
            done.record(self.store_stream)
        return done
