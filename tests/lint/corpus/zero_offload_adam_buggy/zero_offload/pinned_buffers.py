# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

import math

import torch


class PinnedGradPartition:
    """Flat pinned host buffer holding this rank's gradient partition."""

    def __init__(self, numel: int, dtype: torch.dtype, pin_memory: bool = True):
        self.numel = numel
        self.buffer = torch.zeros(numel, dtype=dtype, device="cpu")
        if pin_memory:
            self.buffer = self.buffer.pin_memory()

    def async_copy_from(self, grad: torch.Tensor, offset: int) -> None:
        dest = self.buffer.narrow(0, offset, grad.numel())
        # expect: KVG001
        dest.copy_(grad.view(-1), non_blocking=True)

    def view(self, offset: int, numel: int) -> torch.Tensor:
        return self.buffer.narrow(0, offset, numel)

    def global_norm(self) -> float:
        # expect: KVG003
        norm = self.buffer.float().norm(2).item()
        if math.isinf(norm) or math.isnan(norm):
            return -1.0
        return norm
