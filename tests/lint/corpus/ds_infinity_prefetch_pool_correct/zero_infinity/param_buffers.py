# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""A fixed set of device buffers that fetched parameters live in while their module runs."""

import torch
from deepspeed.accelerator import get_accelerator


class DeviceParamBufferPool:

    def __init__(self, num_buffers, buffer_numel, dtype):
        device = get_accelerator().current_device_name()
        self.buffer_numel = buffer_numel
        self.buffers = [torch.empty(buffer_numel, dtype=dtype, device=device) for _ in range(num_buffers)]
        self.free_ids = list(range(num_buffers))
        self.owner = {}

    def acquire(self, numel):
        if numel > self.buffer_numel:
            raise ValueError(f"parameter of {numel} elements exceeds the {self.buffer_numel} element buffers")
        if not self.free_ids:
            raise RuntimeError("no free parameter buffer: raise max_live_parameters or lower prefetch depth")
        buffer_id = self.free_ids.pop(0)
        view = self.buffers[buffer_id].narrow(0, 0, numel)
        self.owner[view.data_ptr()] = buffer_id
        return view

    def release(self, view):
        self.free_ids.append(self.owner.pop(view.data_ptr()))
