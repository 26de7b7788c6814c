from __future__ import annotations

import numpy as np
import torch


class BlockTable:
    """Per-request block ids, staged in pinned host memory and mirrored on the GPU."""

    def __init__(self, max_num_reqs: int, max_num_blocks_per_req: int, pin_memory: bool, device: torch.device) -> None:
        self.max_num_reqs = max_num_reqs
        self.max_num_blocks_per_req = max_num_blocks_per_req
        self.device = device

        self.block_table_gpu = torch.zeros((max_num_reqs, max_num_blocks_per_req), dtype=torch.int32, device=device)
        self.block_table_cpu = torch.zeros(
            (max_num_reqs, max_num_blocks_per_req), dtype=torch.int32, device="cpu", pin_memory=pin_memory
        )
        self.block_table_np = self.block_table_cpu.numpy()
        self.num_blocks_per_row = np.zeros(max_num_reqs, dtype=np.int32)

    def append_row(self, block_ids: list[int], row_idx: int) -> None:
        if not block_ids:
            return
        start = self.num_blocks_per_row[row_idx]
        end = start + len(block_ids)
        self.block_table_np[row_idx, start:end] = block_ids
        self.num_blocks_per_row[row_idx] = end

    def add_row(self, block_ids: list[int], row_idx: int) -> None:
        self.num_blocks_per_row[row_idx] = 0
        self.append_row(block_ids, row_idx)

    def move_row(self, src: int, tgt: int) -> None:
        n = self.num_blocks_per_row[src]
        self.block_table_np[tgt, :n] = self.block_table_np[src, :n]
        self.num_blocks_per_row[tgt] = n

    def commit(self, num_reqs: int) -> None:
        """Upload the first ``num_reqs`` rows; runs on the caller's current stream."""
        # expect: KVG004
        self.block_table_gpu[:num_reqs].copy_(self.block_table_cpu[:num_reqs], non_blocking=True)

    def get_device_tensor(self) -> torch.Tensor:
        return self.block_table_gpu
