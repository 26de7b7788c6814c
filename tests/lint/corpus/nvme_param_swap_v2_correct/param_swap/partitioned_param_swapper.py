# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os
from concurrent.futures import Future
from enum import Enum
from functools import partial
from typing import Dict, List

import torch

from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .buffer_pool import SwapBufferPool
from .constants import (SWAP_BUFFER_COUNT, SWAP_BUFFER_SIZE, SWAP_FILE_SUFFIX, SWAP_OUT_PARAM_TIMER,
                        SWAP_THREAD_COUNT, SWAP_WAIT_TIMER)
from .writer import SwapFileWriter


class PartitionedParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class AsyncPartitionedParameterSwapper(object):

    def __init__(self, ds_config: Dict, model_dtype: torch.dtype, timers=None):
        swap_cfg = ds_config.get("offload_param", {})
        self.swap_folder = os.path.join(swap_cfg.get("nvme_path", "/local_nvme"), "zero_stage_3", "params")
        os.makedirs(self.swap_folder, exist_ok=True)
        self.timers = timers
        self.buffer_pool = SwapBufferPool(swap_cfg.get("buffer_count", SWAP_BUFFER_COUNT),
                                          swap_cfg.get("buffer_size", SWAP_BUFFER_SIZE), model_dtype)
        self.writer = SwapFileWriter(swap_cfg.get("thread_count", SWAP_THREAD_COUNT))
        self.swap_stream = get_accelerator().Stream()
        self.pending_writes: List[Future] = []

    def _swap_path(self, ds_id: int) -> str:
        return os.path.join(self.swap_folder, f"{ds_id}_param{SWAP_FILE_SUFFIX}")

    def _start_timer(self, name: str) -> None:
        if self.timers is not None:
            self.timers(name).start()

    def _stop_timer(self, name: str) -> None:
        if self.timers is not None:
            self.timers(name).stop()

    def swap_out_and_release(self, params: List[torch.nn.Parameter]) -> None:
        self._start_timer(SWAP_OUT_PARAM_TIMER)
        accel = get_accelerator()
        self.swap_stream.wait_stream(accel.current_stream())
        with accel.stream(self.swap_stream):
            for param in params:
                numel = param.ds_tensor.ds_numel
                buf_index, buf = self.buffer_pool.acquire(numel)
                buf.narrow(0, 0, numel).copy_(param.ds_tensor.data.view(-1), non_blocking=True)
                copied = accel.Event()
                copied.record(self.swap_stream)
                future = self.writer.submit(buf, numel, self._swap_path(param.ds_id), copied,
                                            partial(self.buffer_pool.release, buf_index))
                self.pending_writes.append(future)
                param.ds_tensor.data.record_stream(self.swap_stream)
                param.ds_tensor.data = torch.empty(0, dtype=param.dtype, device=param.device)
                param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
        self._stop_timer(SWAP_OUT_PARAM_TIMER)

    def synchronize_writes(self) -> int:
        self._start_timer(SWAP_WAIT_TIMER)
        total = sum(f.result() for f in self.pending_writes)
        self.pending_writes.clear()
        self._stop_timer(SWAP_WAIT_TIMER)
        logger.debug(f"swapped out {total} bytes")
        return total
