# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""ZeRO-Inference parameter coordinator: before a sub-module runs its offloaded parameters are
swapped in (and those of the next sub-modules along the recorded trace prefetched); after it
runs their device memory goes back to the ring.

Bug: the swap stream is ordered behind the compute stream once per forward, in
``begin_forward``. Ring memory released by a sub-module after that point is handed to the
next prefetch while the released sub-module's kernels may still be queued on the compute
stream, and the swap-in overwrites weights those kernels are still reading."""

from deepspeed.accelerator import get_accelerator

from .ring_buffer import DeviceRingBuffer
from .swap_handles import PartitionStatus
from .swap_mixin import PartitionSwapMixin


class ZeroInferenceCoordinator(PartitionSwapMixin):

    def __init__(self, ring_numel, dtype, prefetch_depth=2):
        self.ring = DeviceRingBuffer(ring_numel, dtype)
        self.prefetch_depth = prefetch_depth
        self.trace = []
        self.trace_complete = False
        self.step = -1

    @staticmethod
    def _params(submodule):
        return [p for p in submodule.parameters(recurse=False) if hasattr(p, "ds_id")]

    def begin_forward(self):
        self.step = -1
        # the previous forward's kernels may still read ring memory
        self.swap_stream.wait_stream(get_accelerator().current_stream())

    def end_forward(self):
        self.trace_complete = True

    def fetch_sub_module(self, submodule):
        self.step += 1
        if not self.trace_complete:
            self.trace.append(submodule)
        params = self._params(submodule)
        missing = [p for p in params if p.ds_status == PartitionStatus.NOT_AVAILABLE]
        if missing:
            self.swap_in(missing)
        for param in params:
            handle = self.inflight.get(param.ds_id)
            if handle is not None:
                handle.wait()
        if self.trace_complete:
            upcoming = self.trace[self.step + 1:self.step + 1 + self.prefetch_depth]
            prefetch = [p for m in upcoming for p in self._params(m)
                        if p.ds_status == PartitionStatus.NOT_AVAILABLE]
            if prefetch:
                self.swap_in(prefetch)

    def release_sub_module(self, submodule):
        self.release(self._params(submodule))
