# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Primary (device) and secondary (pinned host) KV block pools. A block holds K and V of
every layer for ``tokens_per_block`` tokens."""

from typing import List

import torch


class BlockPool:

    def __init__(self, num_blocks, num_layers, tokens_per_block, num_kv_heads, head_dim, dtype, *, device):
        shape = (num_blocks, num_layers, 2, tokens_per_block, num_kv_heads, head_dim)
        if device == "cpu":
            self.kv = torch.empty(shape, dtype=dtype, device="cpu", pin_memory=True)
        else:
            self.kv = torch.empty(shape, dtype=dtype, device=device)
        self.free_blocks: List[int] = list(range(num_blocks))

    def allocate(self) -> int:
        if not self.free_blocks:
            raise RuntimeError("KV block pool exhausted")
        return self.free_blocks.pop()

    def release(self, block_id: int) -> None:
        self.free_blocks.append(block_id)

    def block(self, block_id: int) -> torch.Tensor:
        return self.kv[block_id]
