from __future__ import annotations

import logging
from typing import Dict, Iterable, List

from cuda import cudart

from .cuda_utils import CudaEvent, CudaStream, check
from .pools import D2H, H2D, BlockRange, KVCacheBlockPool, TransferDirection

logger = logging.getLogger(__name__)


class KVCacheTransferManager:
    """Moves block ranges between the primary (device) and secondary (host) pools
    on a dedicated transfer stream. The scheduler waits on the returned events
    before it lets the model touch onboarded blocks."""

    def __init__(self, pool: KVCacheBlockPool, compute_stream: CudaStream) -> None:
        self._pool = pool
        self._compute_stream = compute_stream
        self._stream = CudaStream.create()
        self._compute_ready = CudaEvent.create()
        self._pending: Dict[TransferDirection, Dict[int, CudaEvent]] = {d: {} for d in TransferDirection}

    def _order_after_compute(self) -> None:
        # Blocks may still be read (onboard target) or written (offload source)
        # by kernels already queued on the compute stream.
        self._compute_ready.record(self._compute_stream)
        self._compute_ready.wait(self._stream)

    def onboard(self, request_id: int, ranges: Iterable[BlockRange]) -> CudaEvent:
        pool = self._pool
        self._order_after_compute()
        for r in ranges:
            check(cudart.cudaMemcpy2DAsync(
                pool.primary_block_addr(r.primary_start), pool.primary_pitch,
                pool.secondary_block_addr(r.secondary_start), pool.secondary_pitch,
                r.num_blocks * pool.block_bytes, pool.num_layers,
                H2D, self._stream.handle,
            ))
        return self._finish(TransferDirection.ONBOARD, request_id)

    def offload(self, request_id: int, ranges: Iterable[BlockRange]) -> CudaEvent:
        pool = self._pool
        self._order_after_compute()
        for r in ranges:
            check(cudart.cudaMemcpy2DAsync(
                pool.secondary_block_addr(r.secondary_start), pool.secondary_pitch,
                pool.primary_block_addr(r.primary_start), pool.primary_pitch,
                r.num_blocks * pool.block_bytes, pool.num_layers,
                D2H, self._stream.handle,
            ))
        return self._finish(TransferDirection.OFFLOAD, request_id)

    def _finish(self, direction: TransferDirection, request_id: int) -> CudaEvent:
        event = self._pending[direction].get(request_id) or CudaEvent.create()
        event.record(self._stream)
        self._pending[direction][request_id] = event
        return event

    def wait_onboarded(self, request_ids: List[int], stream: CudaStream) -> None:
        """Make ``stream`` wait until the onboard copies of these requests landed."""
        pending = self._pending[TransferDirection.ONBOARD]
        for rid in request_ids:
            event = pending.pop(rid, None)
            if event is not None:
                event.wait(stream)

    def sync_offloaded(self, request_ids: List[int]) -> None:
        """Block the host until these requests' blocks are safe in the secondary pool."""
        pending = self._pending[TransferDirection.OFFLOAD]
        for rid in request_ids:
            event = pending.pop(rid, None)
            if event is not None:
                event.synchronize()
