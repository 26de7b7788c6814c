# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from typing import List

import torch


class PinnedSwapBuffer(object):
    """A pinned host region that packs several tensors for one write batch."""

    def __init__(self, buffer: torch.Tensor):
        self.buffer = buffer
        self.reset()

    def reset(self):
        self.offset = 0
        self.regions: List[torch.Tensor] = []
        self.paths: List[str] = []

    def has_space(self, aligned_numel: int) -> bool:
        return self.offset + aligned_numel <= self.buffer.numel()

    def stage(self, tensor: torch.Tensor, swap_path: str, aligned_numel: int) -> torch.Tensor:
        assert self.has_space(aligned_numel), f"no room for {aligned_numel} elements"
        region = self.buffer.narrow(0, self.offset, aligned_numel)
        region.narrow(0, 0, tensor.numel()).copy_(tensor.view(-1), non_blocking=True)
        self.regions.append(region)
        self.paths.append(swap_path)
        self.offset += aligned_numel
        return region
