# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from typing import Dict, List, Optional

import torch

from deepspeed.accelerator import get_accelerator

from zeroswap.buffer_pool import SwapBufferPool
from zeroswap.constants import INVALID_BUFFER_ID, PartitionedParamStatus


class AsyncPartitionedParameterSwapper(object):

    def __init__(self, buffer_pool: SwapBufferPool):
        self.buffer_pool = buffer_pool
        self.swap_stream = get_accelerator().Stream()
        self.host_partitions: Dict[int, torch.Tensor] = {}
        self.inflight_events: Dict[int, object] = {}

    def register_param(self, param: torch.nn.Parameter) -> None:
        host = get_accelerator().pin_memory(torch.empty(param.ds_numel, dtype=param.dtype))
        host.copy_(param.data.view(-1))
        self.host_partitions[param.ds_id] = host
        param.data = torch.empty(0, dtype=param.dtype, device=param.device)
        param.ds_buffer_id = INVALID_BUFFER_ID
        param.ds_status = PartitionedParamStatus.NOT_AVAILABLE

    def swap_in(self, params: List[torch.nn.Parameter], after: Optional[object] = None) -> None:
        if after is not None:
            self.swap_stream.wait_stream(after)
        with get_accelerator().stream(self.swap_stream):
            for param in params:
                buffer_id = self.buffer_pool.acquire(param.ds_numel)
                dst = self.buffer_pool.get(buffer_id, param.ds_numel)
                # expect: KVG004
                dst.copy_(self.host_partitions[param.ds_id], non_blocking=True)
                param.data = dst.view(param.ds_shape)
                param.ds_buffer_id = buffer_id
                param.ds_status = PartitionedParamStatus.INFLIGHT
        done = get_accelerator().Event()
        done.record(self.swap_stream)
        for param in params:
            self.inflight_events[param.ds_id] = done

    def synchronize_reads(self, params: List[torch.nn.Parameter]) -> None:
        compute_stream = get_accelerator().current_stream()
        for param in params:
            event = self.inflight_events.pop(param.ds_id, None)
            if event is not None:
                compute_stream.wait_event(event)
            param.ds_status = PartitionedParamStatus.AVAILABLE

    def release(self, params: List[torch.nn.Parameter]) -> None:
        for param in params:
            self.buffer_pool.release(param.ds_buffer_id)
            param.ds_buffer_id = INVALID_BUFFER_ID
            param.data = torch.empty(0, dtype=param.dtype, device=param.device)
            param.ds_status = PartitionedParamStatus.NOT_AVAILABLE
