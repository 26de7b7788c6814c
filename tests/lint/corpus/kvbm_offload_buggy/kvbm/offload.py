"""Offloads device KV blocks to the pinned host tier."""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass

from cuda.bindings import driver

from kvbm.cuda_utils import check, create_event, create_stream, pinned_alloc, record_ready, stream_wait
from kvbm.layout import FullyContiguous, LayoutConfig
from kvbm.transfer import CudaTransferEngine

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OffloadRequest:
    device_block_id: int
    sequence_hash: int


class OffloadManager:
    def __init__(
        self,
        device_layout: FullyContiguous,
        host_config: LayoutConfig,
        compute_stream: int,
        device_ordinal: int = 0,
    ) -> None:
        self.device_layout = device_layout
        self.host_layout = FullyContiguous(host_config, 0)
        self.host_layout.base_addr = pinned_alloc(self.host_layout.required_bytes)
        self._compute_stream = driver.CUstream(compute_stream)
        self._offload_stream = create_stream()
        self._ready = create_event()
        self._done = create_event()
        self._engine = CudaTransferEngine(device_ordinal, self._offload_stream)
        self._free_host_blocks = deque(range(host_config.num_blocks))
        self.registry: dict[int, int] = {}  # sequence hash -> host block

    def offload(self, requests: list[OffloadRequest]) -> list[int]:
        requests = [r for r in requests if r.sequence_hash not in self.registry]
        if not requests or len(requests) > len(self._free_host_blocks):
            return []
        host_ids = [self._free_host_blocks.popleft() for _ in requests]
        pairs = [
            (self.host_layout.block_addr(h), self.device_layout.block_addr(r.device_block_id))
            for h, r in zip(host_ids, requests)
        ]
        nbytes = self.device_layout.block_stride_bytes
        if len(pairs) == 1:
            self._engine.copy_block(pairs[0][0], pairs[0][1], nbytes)
        else:
            record_ready(self._ready, self._compute_stream)
            stream_wait(self._offload_stream, self._ready)
            self._engine.copy_blocks(pairs, nbytes)
        record_ready(self._done, self._offload_stream)
        for h, r in zip(host_ids, requests):
            self.registry[r.sequence_hash] = h
        logger.debug("offloading %d blocks to host", len(pairs))
        return host_ids

    def wait_offload_complete(self) -> None:
        check(driver.cuEventSynchronize(self._done))
