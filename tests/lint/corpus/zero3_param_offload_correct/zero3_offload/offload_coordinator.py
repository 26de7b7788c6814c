# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

from typing import Dict, Optional

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .partition_status import PartitionedParamStatus


class PartitionOffloadCoordinator:
    """Keeps the flat fp16 partitions of each sub-group in pinned CPU memory
    between optimizer steps and brings them back on demand."""

    def __init__(self, num_sub_groups: int, partition_numels: list[int], dtype: torch.dtype):
        self.__offload_stream = get_accelerator().Stream()
        self.__fetch_stream = get_accelerator().Stream()
        self._cpu_flat: Dict[int, torch.Tensor] = {
            i: get_accelerator().pin_memory(torch.empty(numel, dtype=dtype))
            for i, numel in enumerate(partition_numels)
        }
        self._status = {i: PartitionedParamStatus.AVAILABLE for i in range(num_sub_groups)}
        self._update_events: Dict[int, object] = {}
        self._offload_events: Dict[int, object] = {}

    def record_partition_update(self, sub_group_id: int) -> None:
        event = get_accelerator().Event()
        event.record(get_accelerator().current_stream())
        self._update_events[sub_group_id] = event

    def offload_sub_group(self, sub_group_id: int, fp16_flat: torch.Tensor) -> None:
        update_event = self._update_events.pop(sub_group_id, None)
        cpu_flat = self._cpu_flat[sub_group_id]
        with get_accelerator().stream(self.__offload_stream):
            if update_event is not None:
                self.__offload_stream.wait_event(update_event)
            cpu_flat.copy_(fp16_flat, non_blocking=True)
            fp16_flat.record_stream(self.__offload_stream)
            done = get_accelerator().Event()
            done.record(self.__offload_stream)
        self._offload_events[sub_group_id] = done
        self._status[sub_group_id] = PartitionedParamStatus.INFLIGHT

    def fetch_sub_group(self, sub_group_id: int) -> Optional[torch.Tensor]:
        if self._status[sub_group_id] == PartitionedParamStatus.AVAILABLE:
            return None
        done = self._offload_events.pop(sub_group_id, None)
        with get_accelerator().stream(self.__fetch_stream):
            if done is not None:
                self.__fetch_stream.wait_event(done)
            gpu_flat = self._cpu_flat[sub_group_id].to(
                get_accelerator().current_device_name(), non_blocking=True
            )
        get_accelerator().current_stream().wait_stream(self.__fetch_stream)
        gpu_flat.record_stream(get_accelerator().current_stream())
        self._status[sub_group_id] = PartitionedParamStatus.AVAILABLE
        return gpu_flat

    def mark_not_available(self, sub_group_id: int) -> None:
        if self._status[sub_group_id] != PartitionedParamStatus.INFLIGHT:
            logger.warning(f"sub-group {sub_group_id} was not in flight")
        self._status[sub_group_id] = PartitionedParamStatus.NOT_AVAILABLE
