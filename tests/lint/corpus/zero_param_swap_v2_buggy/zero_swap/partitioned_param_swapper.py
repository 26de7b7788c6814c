# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Functionality of swapping partitioned parameters to/from (NVMe) storage devices.
"""
import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import List

import torch
from deepspeed.accelerator import get_accelerator

from .buffer_pool import PinnedSwapBufferPool
from .constants import AIO_THREAD_COUNT, SWAP_BUFFER_COUNT, SWAP_BUFFER_NUMEL, SWAP_FILE_SUFFIX
from .swap_utils import read_spans, stage_partitions, write_spans

logger = logging.getLogger(__name__)


@dataclass
class SwapConfig:
    nvme_path: str
    buffer_count: int = SWAP_BUFFER_COUNT
    buffer_numel: int = SWAP_BUFFER_NUMEL
    dtype: torch.dtype = torch.float16


class AsyncPartitionedParameterSwapper:

    def __init__(self, config: SwapConfig):
        self.swap_folder = os.path.join(config.nvme_path, "zero_stage_3", "params")
        os.makedirs(self.swap_folder, exist_ok=True)
        self.pool = PinnedSwapBufferPool(config.dtype, config.buffer_count, config.buffer_numel)
        self._executor = ThreadPoolExecutor(max_workers=AIO_THREAD_COUNT, thread_name_prefix="ds_param_swap")
        self._pending: List[Future] = []

    def _swap_path(self, param) -> str:
        return os.path.join(self.swap_folder, f"{param.ds_id}{SWAP_FILE_SUFFIX}")

    def _begin_swap_out(self) -> None:
        self.pool.swap_stream.wait_stream(get_accelerator().current_stream())

    def _swap_out(self, params) -> None:
        buf = self.pool.acquire()
        spans, done = stage_partitions(self.pool.swap_stream, buf, [p.ds_tensor for p in params])
        paths = [self._swap_path(p) for p in params]
        future = self._executor.submit(write_spans, buf, spans, paths, done)
        future.add_done_callback(lambda _f, b=buf: self.pool.release(b))
        self._pending.append(future)

    def swap_out_and_release(self, params) -> None:
        """Called by the parameter coordinator once a module no longer needs its partitions."""
        self._begin_swap_out()
        self._swap_out(params)
        for p in params:
            p.ds_tensor.data = torch.empty(0, dtype=p.ds_tensor.dtype, device=p.ds_tensor.device)

    def swap_out_updated(self, params) -> None:
        """Called after the optimizer wrote fresh values into the partitions."""
        self._swap_out(params)

    def swap_in(self, params) -> None:
        buf = self.pool.acquire()
        spans = read_spans(buf, [self._swap_path(p) for p in params], [p.ds_numel for p in params])
        stream = self.pool.swap_stream
        device = get_accelerator().current_device_name()
        fresh = [torch.empty(numel, dtype=buf.buffer.dtype, device=device) for _, numel in spans]
        with get_accelerator().stream(stream):
            for p, dst, (offset, numel) in zip(params, fresh, spans):
                dst.copy_(buf.buffer.narrow(0, offset, numel), non_blocking=True)
                p.ds_tensor.data = dst
        get_accelerator().current_stream().wait_stream(stream)
        stream.synchronize()
        self.pool.release(buf)

    def synchronize_writes(self) -> int:
        total = sum(f.result() for f in self._pending)
        self._pending.clear()
        logger.debug(f"param swapper flushed {total} bytes to {self.swap_folder}")
        return total
