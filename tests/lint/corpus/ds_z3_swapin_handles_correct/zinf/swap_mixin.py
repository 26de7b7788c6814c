# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Swap-in of offloaded parameter partitions, shared by the inference and training
coordinators. The host copy of every partition stays valid (inference never updates it), so a
release simply gives the device memory back to the ring."""

from contextlib import contextmanager

import torch
from deepspeed.accelerator import get_accelerator

from .swap_handles import InflightParamRegistry, PartitionStatus, SwapInHandle


class PartitionSwapMixin:
    """Needs ``self.ring`` (a DeviceRingBuffer) from the class it is mixed into."""

    _swap_stream = None

    @property
    def swap_stream(self):
        if self._swap_stream is None:
            self._swap_stream = get_accelerator().Stream()
        return self._swap_stream

    @property
    def inflight(self):
        if not hasattr(self, "_inflight"):
            self._inflight = InflightParamRegistry()
        return self._inflight

    @contextmanager
    def on_swap_stream(self):
        with get_accelerator().stream(self.swap_stream):
            yield self.swap_stream

    @torch.no_grad()
    def swap_in(self, params):
        # Ring memory handed out here may have been released by a sub-module whose kernels
        # are still queued on the compute stream: order the copies behind them.
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        with self.on_swap_stream():
            for param in params:
                offset, buffer = self.ring.allocate(param.ds_numel)
                handle = SwapInHandle(param, offset)
                buffer.copy_(param.ds_cpu_partition, non_blocking=True)
                handle.done.record()
                param.data = buffer.view(param.ds_shape)
                param.ds_status = PartitionStatus.INFLIGHT
                self.inflight[param.ds_id] = handle

    def release(self, params):
        for param in params:
            handle = self.inflight.pop(param.ds_id, None)
            if handle is not None:
                self.ring.free(handle.ring_offset)
            param.data = param.ds_empty
            param.ds_status = PartitionStatus.NOT_AVAILABLE
