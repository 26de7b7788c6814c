# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Swap fp32 optimizer states of one sub-group between NVMe and accelerator memory."""

import logging
from typing import Dict, List, Optional

import torch
from deepspeed.accelerator import get_accelerator

from .config import OPTIMIZER_STATE_KEYS, OffloadOptimizerConfig

logger = logging.getLogger(__name__)


class PipelinedOptimizerSwapper:

    def __init__(self, config: OffloadOptimizerConfig, aio_handle, device_buffers: Dict[str, torch.Tensor],
                 max_numel: int):
        self.config = config
        self.aio_handle = aio_handle
        # persistent accelerator buffers reused by every sub-group
        self.device_buffers = device_buffers
        self.host_buffers: Dict[str, torch.Tensor] = {
            key: get_accelerator().pin_memory(torch.empty(max_numel, dtype=torch.float32))
            for key in OPTIMIZER_STATE_KEYS
        }
        self.swap_stream = get_accelerator().Stream()
        self._release_event: Optional[object] = None
        self.swap_paths: Dict[int, Dict[str, str]] = {}

    def register_sub_group(self, sub_group_id: int, paths: Dict[str, str]) -> None:
        self.swap_paths[sub_group_id] = paths

    def _read_from_nvme(self, sub_group_id: int, numel: int) -> List[torch.Tensor]:
        staged = []
        for key in OPTIMIZER_STATE_KEYS:
            host = self.host_buffers[key].narrow(0, 0, numel)
            self.aio_handle.async_pread(host, self.swap_paths[sub_group_id][key])
            staged.append(host)
        self.aio_handle.wait()
        return staged

    def swap_in_sub_group(self, sub_group_id: int, numel: int) -> Dict[str, torch.Tensor]:
        staged = self._read_from_nvme(sub_group_id, numel)
        if self._release_event is not None:
            self.swap_stream.wait_event(self._release_event)
        out = {}
        with get_accelerator().stream(self.swap_stream):
            for key, host in zip(OPTIMIZER_STATE_KEYS, staged):
                dst = self.device_buffers[key].narrow(0, 0, numel)
                # expect: KVG004
                dst.copy_(host, non_blocking=True)
                out[key] = dst
        get_accelerator().current_stream().wait_stream(self.swap_stream)
        return out

    def release_sub_group(self, sub_group_id: int, numel: int) -> None:
        event = get_accelerator().Event()
        event.record(self.swap_stream)
        self._release_event = event
        logger.debug("sub-group %d released (%d elements)", sub_group_id, numel)
