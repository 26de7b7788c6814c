# SPDX-License-Identifier: Apache-2.0
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from enum import Enum
from typing import Dict, Iterable, List

import torch

from . import device
from .buffers import DeviceBufferPool, PinnedPartitionStore
from .constants import SWAP_IN_THREAD_PREFIX

logger = logging.getLogger(__name__)


class SwapStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class AsyncPartitionedParamSwapper:

    def __init__(self, pool: DeviceBufferPool, store: PinnedPartitionStore):
        self.pool = pool
        self.store = store
        self.swap_stream = device.new_stream()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=SWAP_IN_THREAD_PREFIX)
        self._futures: Dict[int, Future] = {}
        self._slots: Dict[int, int] = {}
        self._next_id = 0

    def register(self, params: Iterable[torch.nn.Parameter]) -> None:
        for p in params:
            p.ds_id = self._next_id
            p.ds_shape = p.shape
            self._next_id += 1
            self.store.put(p.ds_id, p.data)
            p.data = torch.empty(0, dtype=p.dtype, device=p.device)
            p.ds_status = SwapStatus.NOT_AVAILABLE

    def _swap_in(self, param: torch.nn.Parameter):
        idx, buf = self.pool.acquire()
        host = self.store.get(param.ds_id)
        self.swap_stream.wait_stream(device.compute_stream())
        with device.device_module().stream(self.swap_stream):
            dst = buf.narrow(0, 0, host.numel())
            # expect: KVG004
            dst.copy_(host, non_blocking=True)
        done = device.new_event()
        done.record(self.swap_stream)
        return idx, dst, done

    def prefetch(self, params: List[torch.nn.Parameter]) -> None:
        for p in params:
            if p.ds_status is not SwapStatus.NOT_AVAILABLE:
                continue
            p.ds_status = SwapStatus.INFLIGHT
            self._futures[p.ds_id] = self._executor.submit(self._swap_in, p)

    def wait(self, params: List[torch.nn.Parameter]) -> None:
        compute = device.compute_stream()
        for p in params:
            future = self._futures.pop(p.ds_id, None)
            if future is None:
                continue
            idx, dst, done = future.result()
            compute.wait_event(done)
            p.data = dst.view(p.ds_shape)
            self._slots[p.ds_id] = idx
            p.ds_status = SwapStatus.AVAILABLE

    def release(self, params: List[torch.nn.Parameter]) -> None:
        for p in params:
            idx = self._slots.pop(p.ds_id, None)
            if idx is None:
                continue
            p.data = torch.empty(0, dtype=p.dtype, device=p.device)
            p.ds_status = SwapStatus.NOT_AVAILABLE
            self.pool.release(idx)
