# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from enum import Enum
from typing import Any, Dict, Iterable

import torch
from deepspeed.accelerator import get_accelerator

from .gpu_slots import PartitionSlotPool
from .host_store import PinnedPartitionStore


class PartitionedParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class AsyncPartitionedParameterFetcher(object):

    def __init__(self, host_store: PinnedPartitionStore, slot_pool: PartitionSlotPool):
        self.host_store = host_store
        self.slot_pool = slot_pool
        self.h2d_stream = get_accelerator().Stream()
        self.param_slot: Dict[int, int] = {}
        self.inflight_events: Dict[int, Any] = {}
        self.empty_partition = torch.empty(0, dtype=slot_pool.flat_buffer.dtype, device=slot_pool.flat_buffer.device)

    def _order_after_compute(self) -> None:
        self.h2d_stream.wait_stream(get_accelerator().current_stream())

    def _bind(self, param, slot_id: int, slot: torch.Tensor, status: PartitionedParamStatus) -> None:
        self.param_slot[param.ds_id] = slot_id
        param.ds_tensor.data = slot
        param.ds_tensor.status = status

    def prefetch(self, params: Iterable[Any]) -> None:
        pending = [p for p in params if p.ds_tensor.status == PartitionedParamStatus.NOT_AVAILABLE]
        pending = pending[:self.slot_pool.available()]
        if not pending:
            return
        self._order_after_compute()
        with get_accelerator().stream(self.h2d_stream):
            for param in pending:
                slot_id, slot = self.slot_pool.acquire(self.host_store.numel(param.ds_id))
                self.host_store.copy_into(param.ds_id, slot)
                event = get_accelerator().Event()
                event.record(self.h2d_stream)
                self.inflight_events[param.ds_id] = event
                self._bind(param, slot_id, slot, PartitionedParamStatus.INFLIGHT)

    def fetch(self, param) -> None:
        status = param.ds_tensor.status
        if status == PartitionedParamStatus.AVAILABLE:
            return
        if status == PartitionedParamStatus.INFLIGHT:
            get_accelerator().current_stream().wait_event(self.inflight_events.pop(param.ds_id))
            param.ds_tensor.status = PartitionedParamStatus.AVAILABLE
            return

        # not prefetched (first step, or trace invalidated): blocking swap in
        slot_id, slot = self.slot_pool.acquire(self.host_store.numel(param.ds_id))
        with get_accelerator().stream(self.h2d_stream):
            self.host_store.copy_into(param.ds_id, slot)
        self.h2d_stream.synchronize()
        self._bind(param, slot_id, slot, PartitionedParamStatus.AVAILABLE)

    def release(self, param) -> None:
        slot_id = self.param_slot.pop(param.ds_id, None)
        if slot_id is None:
            return
        self.inflight_events.pop(param.ds_id, None)
        param.ds_tensor.data = self.empty_partition
        param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
        self.slot_pool.release(slot_id)
