from __future__ import annotations

import ctypes
import logging
from collections import deque
from dataclasses import dataclass
from typing import Callable, Optional

from . import cudart
from .constants import (
    SWAP_OUT_ACCESS_ORDER,
    cudaEventDisableTiming,
    cudaMemcpyFlagPreferOverlapWithCompute,
    cudaMemLocationTypeDevice,
    cudaMemLocationTypeHost,
    cudaStreamNonBlocking,
)

logger = logging.getLogger(__name__)


@dataclass
class SwapOutJob:
    req_id: str
    src_ptrs: list[int]
    dst_ptrs: list[int]
    sizes: list[int]
    on_issue: Optional[Callable[[int], None]] = None
    done_event: int = 0


class BlockSwapper:
    """Issues GPU -> pinned-CPU block copies on a private stream."""

    def __init__(self, device_index: int):
        self.device_index = device_index
        self.stream = cudart.stream_create(cudaStreamNonBlocking)
        attr = cudart.cudaMemcpyAttributes()
        attr.srcAccessOrder = SWAP_OUT_ACCESS_ORDER
        attr.srcLocHint.type = cudaMemLocationTypeDevice
        attr.srcLocHint.id = device_index
        attr.dstLocHint.type = cudaMemLocationTypeHost
        attr.flags = cudaMemcpyFlagPreferOverlapWithCompute
        self._attr = attr
        self._inflight: deque[SwapOutJob] = deque()

    def swap_out(self, job: SwapOutJob) -> None:
        if job.on_issue is not None:
            job.on_issue(self.stream)
        fail_idx = ctypes.c_size_t(0)
        err = cudart.lib.cudaMemcpyBatchAsync(
            cudart.ptr_array(job.dst_ptrs), cudart.ptr_array(job.src_ptrs),
            cudart.size_array(job.sizes), len(job.sizes), ctypes.byref(self._attr),
            cudart.size_array([0]), 1, ctypes.byref(fail_idx), self.stream,
        )
        cudart.check(err, f"cudaMemcpyBatchAsync (copy {fail_idx.value})")
        job.done_event = cudart.event_create(cudaEventDisableTiming)
        cudart.event_record(job.done_event, self.stream)
        self._inflight.append(job)

    def poll(self) -> list[str]:
        done: list[str] = []
        while self._inflight and cudart.event_query(self._inflight[0].done_event):
            job = self._inflight.popleft()
            cudart.event_destroy(job.done_event)
            done.append(job.req_id)
        return done
