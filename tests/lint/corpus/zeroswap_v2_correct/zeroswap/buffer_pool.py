# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from collections import deque
from typing import Deque, List

import torch

from deepspeed.accelerator import get_accelerator
from deepspeed.utils.logging import logger

from zeroswap.constants import PARAM_SWAP_BUFFER_COUNT, PARAM_SWAP_BUFFER_NUMEL


class SwapBufferPool(object):
    """Fixed set of flat device buffers that swapped-in partitions live in."""

    def __init__(self, dtype: torch.dtype, count: int = PARAM_SWAP_BUFFER_COUNT,
                 numel: int = PARAM_SWAP_BUFFER_NUMEL):
        device = get_accelerator().current_device_name()
        self.numel = numel
        self.buffers: List[torch.Tensor] = [torch.empty(numel, dtype=dtype, device=device) for _ in range(count)]
        self.free_buffer_ids: Deque[int] = deque(range(count))
        logger.info(f"SwapBufferPool: {count} buffers of {numel} elements on {device}")

    def available(self) -> int:
        return len(self.free_buffer_ids)

    def acquire(self, numel: int) -> int:
        assert numel <= self.numel, f"partition of {numel} does not fit swap buffer of {self.numel}"
        if not self.free_buffer_ids:
            raise RuntimeError("SwapBufferPool exhausted, increase PARAM_SWAP_BUFFER_COUNT")
        return self.free_buffer_ids.popleft()

    def get(self, buffer_id: int, numel: int) -> torch.Tensor:
        return self.buffers[buffer_id].narrow(0, 0, numel)

    def release(self, buffer_id: int) -> None:
        self.free_buffer_ids.append(buffer_id)
