# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Swap partitioned fp16 parameters between accelerator memory and NVMe."""

import logging
import os
from enum import Enum
from typing import Dict, List

import torch
from deepspeed.accelerator import get_accelerator

from .buffer_pool import PinnedSwapBufferPool
from .constants import PARAM_FILE_SUFFIX, SWAP_BUFFER_COUNT, SWAP_BUFFER_SIZE

logger = logging.getLogger(__name__)


class PartitionedParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class AsyncPartitionedParameterSwapper:

    def __init__(self, swap_folder: str, aio_handle, dtype: torch.dtype = torch.float16):
        self.swap_folder = swap_folder
        self.aio_write_handle = aio_handle
        self.pool = PinnedSwapBufferPool(SWAP_BUFFER_COUNT, SWAP_BUFFER_SIZE, dtype)
        self.swap_stream = get_accelerator().Stream()
        self.swap_out_event = get_accelerator().Event()
        self.id_to_path: Dict[int, str] = {}
        os.makedirs(swap_folder, exist_ok=True)

    def _get_path(self, param) -> str:
        path = self.id_to_path.get(param.ds_id)
        if path is None:
            path = os.path.join(self.swap_folder, f"{param.ds_id}_param{PARAM_FILE_SUFFIX}")
            self.id_to_path[param.ds_id] = path
        return path

    def swap_out_and_release(self, params: List[torch.nn.Parameter]) -> None:
        staged = []
        with get_accelerator().stream(self.swap_stream):
            for param in params:
                src = param.ds_tensor.data
                buffer = self.pool.acquire(src.numel())
                if buffer is None:
                    logger.warning("no swap buffer for param %d, keeping it resident", param.ds_id)
                    continue
                # expect: KVG001
                buffer.copy_(src, non_blocking=True)
                staged.append((param, buffer))
            self.swap_out_event.record(self.swap_stream)

        self.swap_out_event.synchronize()
        for param, buffer in staged:
            self.aio_write_handle.async_pwrite(buffer, self._get_path(param))
        self.aio_write_handle.wait()

        for param, buffer in staged:
            self.pool.release(buffer)
            param.ds_tensor.data = torch.empty(0, dtype=param.dtype, device=param.ds_tensor.device)
            param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
