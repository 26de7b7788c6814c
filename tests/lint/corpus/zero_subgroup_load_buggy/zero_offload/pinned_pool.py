# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from typing import Dict

import torch

from deepspeed.utils import logger


class SubGroupPinnedBuffers(object):
    """One page-locked low-precision buffer per optimizer sub-group."""

    def __init__(self, dtype: torch.dtype, pin_memory: bool = True):
        self.dtype = dtype
        self.pin_memory = pin_memory
        self._buffers: Dict[int, torch.Tensor] = {}

    def get(self, sub_group_id: int, numel: int) -> torch.Tensor:
        buffer = self._buffers.get(sub_group_id)
        if buffer is None or buffer.numel() < numel:
            buffer = torch.empty(numel, dtype=self.dtype, pin_memory=self.pin_memory)
            self._buffers[sub_group_id] = buffer
            logger.debug(f"pinned buffer for sub-group {sub_group_id}: {numel} elements")
        return buffer.narrow(0, 0, numel)

    def total_bytes(self) -> int:
        return sum(b.numel() * b.element_size() for b in self._buffers.values())
