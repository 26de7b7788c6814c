# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import threading
from typing import List, Tuple

import torch

from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger


class SwapBufferPool:
    """Fixed set of pinned host buffers used as staging for NVMe writes."""

    def __init__(self, count: int, numel: int, dtype: torch.dtype = torch.float32):
        self._numel = numel
        self._buffers = [
            get_accelerator().pin_memory(torch.empty(numel, dtype=dtype, device="cpu")) for _ in range(count)
        ]
        self._free = list(range(count))
        self._cond = threading.Condition()
        logger.info(f"SwapBufferPool: {count} pinned buffers of {numel} elements")

    def allocate(self, num: int) -> Tuple[List[int], List[torch.Tensor]]:
        with self._cond:
            while len(self._free) < num:
                self._cond.wait()
            indices = [self._free.pop() for _ in range(num)]
        return indices, [self._buffers[i] for i in indices]

    def release(self, indices: List[int]) -> None:
        with self._cond:
            self._free.extend(indices)
            self._cond.notify_all()


def copy_to_swap_buffers(buffers: List[torch.Tensor], tensors: List[torch.Tensor]) -> List[torch.Tensor]:
    views = []
    for buf, tensor in zip(buffers, tensors):
        assert tensor.numel() <= buf.numel(), f"tensor of {tensor.numel()} elements exceeds swap buffer"
        dst = buf.narrow(0, 0, tensor.numel())
        # expect: KVG001
        dst.copy_(tensor.detach().view(-1), non_blocking=True)
        views.append(dst)
    return views
