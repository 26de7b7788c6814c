# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from typing import List

import torch

from deepspeed.accelerator import get_accelerator
from deepspeed.utils.logging import logger

from zeroswap.constants import PREFETCH_BUCKET_SIZE, PartitionedParamStatus
from zeroswap.swapper import AsyncPartitionedParameterSwapper


class PartitionedParameterCoordinator(object):
    """Fetches the partitions a sub-module needs and prefetches the next ones
    following the module order traced in the first step."""

    def __init__(self, swapper: AsyncPartitionedParameterSwapper, prefetch_bucket_size: int = PREFETCH_BUCKET_SIZE):
        self.swapper = swapper
        self.prefetch_bucket_size = prefetch_bucket_size
        self.trace: List[torch.nn.Module] = []
        self.trace_complete = False
        self.step_id = 0

    def reset_step(self) -> None:
        if not self.trace_complete:
            logger.info(f"Recorded module trace of {len(self.trace)} sub-modules")
        self.trace_complete = True
        self.step_id = 0

    @staticmethod
    def _params(module: torch.nn.Module) -> List[torch.nn.Parameter]:
        return [p for p in module.parameters(recurse=False) if hasattr(p, "ds_id")]

    def fetch_sub_module(self, module: torch.nn.Module) -> None:
        if not self.trace_complete:
            self.trace.append(module)
        params = self._params(module)
        not_resident = [p for p in params if p.ds_status == PartitionedParamStatus.NOT_AVAILABLE]
        if not_resident:
            self.swapper.swap_in(not_resident, after=get_accelerator().current_stream())
        self.swapper.synchronize_reads(params)
        self.step_id += 1
        if self.trace_complete:
            self._prefetch_next()

    def _prefetch_next(self) -> None:
        upcoming = []
        for module in self.trace[self.step_id:self.step_id + self.prefetch_bucket_size]:
            upcoming.extend(p for p in self._params(module) if p.ds_status == PartitionedParamStatus.NOT_AVAILABLE)
        upcoming = upcoming[:self.swapper.buffer_pool.available()]
        if upcoming:
            self.swapper.swap_in(upcoming, after=get_accelerator().current_stream())

    def release_sub_module(self, module: torch.nn.Module) -> None:
        params = [p for p in self._params(module) if p.ds_status == PartitionedParamStatus.AVAILABLE]
        self.swapper.release(params)
