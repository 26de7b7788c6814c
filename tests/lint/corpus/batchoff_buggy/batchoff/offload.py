# SPDX-License-Identifier: Apache-2.0
import logging
from collections import deque
from typing import Deque, Dict, List, Sequence, Set, Tuple

import torch
from cuda.bindings import driver

from batchoff import cuda_rt
from batchoff._cuconst import Direction
from batchoff.transfer import BatchPlan, submit

logger = logging.getLogger(__name__)


def _compute_stream() -> driver.CUstream:
    return driver.CUstream(torch.cuda.current_stream().cuda_stream)


class KVBlockOffloader:
    def __init__(self, gpu_caches: Dict[str, torch.Tensor], cpu_caches: Dict[str, torch.Tensor]):
        device_index = next(iter(gpu_caches.values())).device.index or 0
        self._store_stream = cuda_rt.create_stream()
        self._load_stream = cuda_rt.create_stream()
        self._store_plan = BatchPlan.build(gpu_caches, cpu_caches, Direction.STORE, self._store_stream, device_index)
        self._load_plan = BatchPlan.build(cpu_caches, gpu_caches, Direction.LOAD, self._load_stream, device_index)
        self._inflight: Deque[Tuple[List[int], driver.CUevent]] = deque()
        self._committed: Set[int] = set()

    def store(self, gpu_block_ids: Sequence[int], cpu_block_ids: Sequence[int]) -> None:
        cuda_rt.fence(self._store_stream, _compute_stream())
        n = submit(self._store_plan, gpu_block_ids, cpu_block_ids)
        self._inflight.append((list(cpu_block_ids), cuda_rt.record(self._store_stream)))
        logger.debug("queued %d store copies", n)

    def poll(self) -> List[int]:
        finished: List[int] = []
        while self._inflight and cuda_rt.query(self._inflight[0][1]):
            ids, event = self._inflight.popleft()
            driver.cuEventDestroy(event)
            self._committed.update(ids)
            finished.extend(ids)
        return finished

    def drain(self) -> None:
        while self._inflight:
            ids, event = self._inflight.popleft()
            cuda_rt.synchronize(event)
            self._committed.update(ids)

    def load(self, cpu_block_ids: Sequence[int], gpu_block_ids: Sequence[int]) -> None:
        if any(b not in self._committed for b in cpu_block_ids):
            self.drain()
        unknown = [b for b in cpu_block_ids if b not in self._committed]
        if unknown:
            raise KeyError(f"cpu blocks {unknown} were never stored")
        compute = _compute_stream()
        cuda_rt.fence(self._load_stream, compute)
        submit(self._load_plan, cpu_block_ids, gpu_block_ids)
        cuda_rt.fence(compute, self._load_stream)

    def evict(self, cpu_block_ids: Sequence[int]) -> None:
        self._committed.difference_update(cpu_block_ids)
