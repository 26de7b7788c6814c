# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""One flat device allocation carved into fetched parameters front to back and wrapped
around when the end is reached (the shape of DeepSpeed's contiguous allocators)."""

import collections

import torch
from deepspeed.accelerator import get_accelerator


class DeviceRingBuffer:

    def __init__(self, total_numel, dtype):
        self.total_numel = total_numel
        self._flat = torch.empty(total_numel, dtype=dtype, device=get_accelerator().current_device_name())
        self._head = 0
        self._live = collections.OrderedDict()  # offset -> numel, oldest first

    def _fits(self, offset, numel):
        end = offset + numel
        return all(end <= o or offset >= o + n for o, n in self._live.items())

    def allocate(self, numel):
        if numel > self.total_numel:
            raise ValueError(f"{numel} elements do not fit a {self.total_numel} element ring")
        offset = self._head if self._head + numel <= self.total_numel else 0
        if not self._fits(offset, numel):
            raise RuntimeError("ring buffer exhausted: lower stage3_prefetch_bucket_size")
        self._live[offset] = numel
        self._head = offset + numel
        return offset, self._flat.narrow(0, offset, numel)

    def free(self, offset):
        self._live.pop(offset, None)
