# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from collections import deque
from typing import Any, Deque, Dict, List

from deepspeed.utils.logging import logger

from .fetcher import AsyncPartitionedParameterFetcher


class PartitionedParameterCoordinator(object):
    """Fetches parameters for each submodule and prefetches along the recorded trace."""

    def __init__(self, fetcher: AsyncPartitionedParameterFetcher, prefetch_bucket_size: int):
        self.fetcher = fetcher
        self.prefetch_bucket_size = prefetch_bucket_size
        self.submodule_order: List[int] = []
        self.params_of: Dict[int, List[Any]] = {}
        self.trace_complete = False
        self.step_id = 0
        self._prefetch_queue: Deque[Any] = deque()

    def record_module(self, module_id: int, params: List[Any]) -> None:
        if not self.trace_complete:
            self.submodule_order.append(module_id)
            self.params_of[module_id] = params

    def fetch_sub_module(self, module_id: int, params: List[Any]) -> None:
        self.record_module(module_id, params)
        for param in params:
            self.fetcher.fetch(param)
        if self.trace_complete:
            self.fetcher.prefetch(self._next_bucket(module_id))

    def release_sub_module(self, params: List[Any]) -> None:
        for param in params:
            self.fetcher.release(param)

    def _next_bucket(self, module_id: int) -> List[Any]:
        position = self.submodule_order.index(module_id)
        bucket, numel = [], 0
        for next_id in self.submodule_order[position + 1:]:
            for param in self.params_of[next_id]:
                if numel + param.ds_numel > self.prefetch_bucket_size:
                    return bucket
                bucket.append(param)
                numel += param.ds_numel
        return bucket

    def reset_step(self) -> None:
        if not self.trace_complete and self.submodule_order:
            self.trace_complete = True
            logger.info(f"recorded trace of {len(self.submodule_order)} submodules")
        self.step_id += 1
