# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Functionality of swapping tensors to/from (NVMe) storage devices.
"""

import logging
import os
from enum import Enum
from typing import Dict, List

import torch

from .accelerator import get_accelerator
from .config import DeepSpeedZeroOffloadParamConfig
from .constants import SWAP_FOLDER_NAME, SWAP_FILE_SUFFIX
from .swap_utils import (aligned_numel, load_partition_from_host, stage_partition_to_host, swap_in_tensors,
                         swap_out_tensors)

logger = logging.getLogger(__name__)


class PartitionedParamStatus(Enum):
    # Partitioned parameters are present and ready for use
    AVAILABLE = 1
    # partitioned params are in some non-memory device
    NOT_AVAILABLE = 2
    # partitioned params are being read from some non-memory device.
    INFLIGHT = 3


class AsyncPartitionedParameterSwapper(object):

    def __init__(self, offload_config: DeepSpeedZeroOffloadParamConfig, aio_handle, rank: int = 0,
                 dtype: torch.dtype = torch.float16):
        self.dtype = dtype
        self.aio_handle = aio_handle
        self.swap_folder = os.path.join(offload_config.nvme_path, SWAP_FOLDER_NAME, f"{dtype}params", f"rank{rank}")
        os.makedirs(self.swap_folder, exist_ok=True)

        self.param_buffer_count = offload_config.buffer_count
        self.elements_per_buffer = aligned_numel(offload_config.buffer_size, dtype)
        self.swap_stream = get_accelerator().Stream()

        self.id_to_path: Dict[int, str] = {}
        self.param_id_to_buffer_id: Dict[int, int] = {}
        self.param_id_to_numel: Dict[int, int] = {}
        self.available_buffer_ids: List[int] = list(range(self.param_buffer_count))
        self.inflight_params = []
        self.inflight_event = None
        self.pending_reads = 0
        self.pending_writes = 0

        total = self.param_buffer_count * self.elements_per_buffer
        host_pool = get_accelerator().pin_memory(torch.zeros(total, dtype=dtype))
        device_pool = torch.empty(total, dtype=dtype, device=get_accelerator().current_device_name())
        self.pinned_buffers = [
            host_pool.narrow(0, i * self.elements_per_buffer, self.elements_per_buffer)
            for i in range(self.param_buffer_count)
        ]
        self.gpu_partition_buffers = [
            device_pool.narrow(0, i * self.elements_per_buffer, self.elements_per_buffer)
            for i in range(self.param_buffer_count)
        ]
        alloc_event = get_accelerator().Event()
        alloc_event.record(get_accelerator().current_stream())
        self.buffer_release_events = [alloc_event] * self.param_buffer_count
        logger.info(f"Swapper {self.param_buffer_count} buffers of {self.elements_per_buffer} elems "
                    f"in {self.swap_folder}")

    def _get_swap_path(self, param_id: int) -> str:
        if param_id not in self.id_to_path:
            self.id_to_path[param_id] = os.path.join(self.swap_folder, f"{param_id}_param{SWAP_FILE_SUFFIX}")
        return self.id_to_path[param_id]

    def _allocate_buffer(self, param) -> int:
        if param.ds_id in self.param_id_to_buffer_id:
            return self.param_id_to_buffer_id[param.ds_id]
        assert len(self.available_buffer_ids) > 0, "No swap buffers left"
        buffer_id = self.available_buffer_ids.pop()
        self.param_id_to_buffer_id[param.ds_id] = buffer_id
        self.param_id_to_numel[param.ds_id] = param.ds_tensor.ds_numel
        return buffer_id

    def _release_buffer(self, param_id: int) -> None:
        buffer_id = self.param_id_to_buffer_id.pop(param_id)
        event = get_accelerator().Event()
        event.record(get_accelerator().current_stream())
        self.buffer_release_events[buffer_id] = event
        self.available_buffer_ids.append(buffer_id)

    def synchronize_writes(self) -> None:
        if self.pending_writes == 0:
            return
        assert self.pending_writes == self.aio_handle.wait()
        self.pending_writes = 0

    def synchronize_reads(self) -> None:
        if self.pending_reads == 0:
            return
        get_accelerator().current_stream().wait_event(self.inflight_event)
        for param in self.inflight_params:
            param.ds_tensor.status = PartitionedParamStatus.AVAILABLE
        self.inflight_params = []
        self.inflight_event = None
        self.pending_reads = 0

    def swap_out_and_release(self, params, async_op: bool = False) -> None:
        compute_stream = get_accelerator().current_stream()
        self.swap_stream.wait_stream(compute_stream)
        staged = []
        with get_accelerator().stream(self.swap_stream):
            for param in params:
                buffer_id = self.param_id_to_buffer_id[param.ds_id]
                staged.append(stage_partition_to_host(self.pinned_buffers[buffer_id], param.ds_tensor))
        self.swap_stream.synchronize()

        swap_out_tensors(self.aio_handle, staged, [self._get_swap_path(p.ds_id) for p in params])
        self.pending_writes += len(staged)
        if not async_op:
            self.synchronize_writes()

        for param in params:
            param.ds_tensor.data = torch.empty(0, dtype=self.dtype, device=param.ds_tensor.device)
            param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
            self._release_buffer(param.ds_id)

    def release_param(self, param) -> None:
        if param.ds_tensor.status == PartitionedParamStatus.AVAILABLE:
            param.ds_tensor.data = torch.empty(0, dtype=self.dtype, device=param.ds_tensor.device)
            param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
            self._release_buffer(param.ds_id)

    def swap_in(self, params, async_op: bool = True) -> None:
        assert all(p.ds_tensor.status == PartitionedParamStatus.NOT_AVAILABLE for p in params)
        self.synchronize_writes()
        self.swap_stream.synchronize()

        buffer_ids = [self._allocate_buffer(p) for p in params]
        host_buffers = [self.pinned_buffers[b].narrow(0, 0, self.param_id_to_numel[p.ds_id])
                        for b, p in zip(buffer_ids, params)]
        swap_in_tensors(self.aio_handle, host_buffers, [self._get_swap_path(p.ds_id) for p in params])
        assert len(host_buffers) == self.aio_handle.wait()

        with get_accelerator().stream(self.swap_stream):
            for param, buffer_id in zip(params, buffer_ids):
                self.swap_stream.wait_event(self.buffer_release_events[buffer_id])
                numel = self.param_id_to_numel[param.ds_id]
                param.ds_tensor.data = load_partition_from_host(self.gpu_partition_buffers[buffer_id],
                                                                self.pinned_buffers[buffer_id], numel)
                param.ds_tensor.status = PartitionedParamStatus.INFLIGHT
            self.inflight_event = get_accelerator().Event()
            self.inflight_event.record(self.swap_stream)

        self.inflight_params.extend(params)
        self.pending_reads += len(params)
        if not async_op:
            self.synchronize_reads()
