# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Functionality of swapping ZeRO-3 parameter partitions to NVMe."""

import functools
import os
from concurrent.futures import Future, ThreadPoolExecutor
from enum import Enum
from typing import Dict, List, Tuple

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .buffer_pool import PinnedSwapBufferPool
from .constants import (SWAP_BUFFER_COUNT, SWAP_BUFFER_COUNT_DEFAULT, SWAP_BUFFER_SIZE, SWAP_BUFFER_SIZE_DEFAULT,
                        SWAP_FOLDER_PREFIX, SWAP_WRITER_THREADS, SWAP_WRITER_THREADS_DEFAULT)
from .swap_utils import stage_to_host, swap_path, write_host_buffer


class PartitionedParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class AsyncPartitionedParameterSwapper:

    def __init__(self, swap_config: Dict, nvme_path: str, rank: int, dtype: torch.dtype):
        self.swap_folder = os.path.join(nvme_path, f"{SWAP_FOLDER_PREFIX}_rank{rank}")
        os.makedirs(self.swap_folder, exist_ok=True)
        self.pool = PinnedSwapBufferPool(swap_config.get(SWAP_BUFFER_COUNT, SWAP_BUFFER_COUNT_DEFAULT),
                                         swap_config.get(SWAP_BUFFER_SIZE, SWAP_BUFFER_SIZE_DEFAULT), dtype)
        self.swap_stream = get_accelerator().Stream()
        self._writer = ThreadPoolExecutor(max_workers=swap_config.get(SWAP_WRITER_THREADS, SWAP_WRITER_THREADS_DEFAULT),
                                          thread_name_prefix="ds_param_swap")
        self._pending: List[Future] = []
        self.swapped_numel: Dict[int, int] = {}

    def _write_partitions(self, staged: List[Tuple[int, torch.Tensor]], copy_done) -> int:
        copy_done.synchronize()
        written = 0
        for param_id, host_view in staged:
            written += write_host_buffer(swap_path(self.swap_folder, param_id), host_view)
        return written

    def _on_write_done(self, buffers: List[torch.Tensor], params: List[torch.nn.Parameter], fut: Future) -> None:
        self.pool.release(buffers)
        for p in params:
            p.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
        logger.debug(f"swapped out {fut.result()} bytes for {len(params)} params")

    def swap_out_and_release(self, params: List[torch.nn.Parameter]) -> None:
        staged: List[Tuple[int, torch.Tensor]] = []
        buffers: List[torch.Tensor] = []
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.swap_stream):
            for p in params:
                partition = p.ds_tensor
                buffer = self.pool.acquire()
                buffers.append(buffer)
                staged.append((p.ds_id, stage_to_host(buffer, partition)))
                self.swapped_numel[p.ds_id] = partition.numel()
                partition.record_stream(self.swap_stream)
                partition.status = PartitionedParamStatus.INFLIGHT
                p.ds_tensor.data = torch.empty(0, dtype=partition.dtype, device=partition.device)

        copy_done = get_accelerator().Event()
        copy_done.record(self.swap_stream)
        fut = self._writer.submit(self._write_partitions, staged, copy_done)
        fut.add_done_callback(functools.partial(self._on_write_done, buffers, params))
        self._pending.append(fut)

    def synchronize_writes(self) -> None:
        for fut in self._pending:
            fut.result()
        self._pending.clear()
