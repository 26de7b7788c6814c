# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .param_buffers import DeviceParamBufferPool
from .utils import ZeroParamStatus, instrument_w_nvtx


class PartitionedParameterCoordinator:

    def __init__(self, num_buffers, buffer_numel, dtype, prefetch_depth=2):
        self.buffer_pool = DeviceParamBufferPool(num_buffers, buffer_numel, dtype)
        self.prefetch_depth = prefetch_depth
        self._prefetch_stream = get_accelerator().Stream()
        self._inflight = {}
        self._trace = []
        self._trace_complete = False
        self._step = -1

    def _params(self, submodule):
        return [p for p in submodule.parameters(recurse=False) if hasattr(p, "ds_id")]

    @instrument_w_nvtx
    def _fetch_params(self, params):
        # a pooled buffer may have been released by a module whose kernels are still queued
        self._prefetch_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self._prefetch_stream):
            for param in params:
                buffer = self.buffer_pool.acquire(param.ds_numel)
                buffer.copy_(param.ds_host_partition, non_blocking=True)
                param.data = buffer.view(param.ds_shape)
                param.ds_status = ZeroParamStatus.INFLIGHT
                event = get_accelerator().Event()
                event.record(self._prefetch_stream)
                self._inflight[param.ds_id] = event

    def _upcoming(self):
        nxt = self._trace[self._step + 1:self._step + 1 + self.prefetch_depth]
        return [p for m in nxt for p in self._params(m) if p.ds_status == ZeroParamStatus.NOT_AVAILABLE]

    @instrument_w_nvtx
    @torch.no_grad()
    def fetch_sub_module(self, submodule):
        self._step += 1
        if not self._trace_complete:
            self._trace.append(submodule)
        params = self._params(submodule)
        missing = [p for p in params if p.ds_status == ZeroParamStatus.NOT_AVAILABLE]
        if missing:
            self._fetch_params(missing)
        compute = get_accelerator().current_stream()
        for param in params:
            event = self._inflight.pop(param.ds_id, None)
            if event is not None:
                compute.wait_event(event)
            param.ds_status = ZeroParamStatus.AVAILABLE
        if self._trace_complete:
            upcoming = self._upcoming()
            if upcoming:
                self._fetch_params(upcoming)

    @instrument_w_nvtx
    @torch.no_grad()
    def release_sub_module(self, submodule):
        for param in self._params(submodule):
            self.buffer_pool.release(param.data.view(-1))
            param.data = param.ds_empty
            param.ds_status = ZeroParamStatus.NOT_AVAILABLE

    def reset_step(self):
        if not self._trace_complete:
            logger.info(f"recorded a trace of {len(self._trace)} sub-modules")
        self._trace_complete = True
        self._step = -1
