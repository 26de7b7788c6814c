import logging
from dataclasses import dataclass

from cuda import cudart

from .block_pool import BlockPool, CacheLevel, KVCacheBlock
from .cuda_utils import CUASSERT, StreamPriority, create_event, create_priority_stream, event_done

logger = logging.getLogger(__name__)


@dataclass
class _InFlight:
    event: cudart.cudaEvent_t
    block: KVCacheBlock
    release_secondary: int | None = None


class KVCacheTransferManager:
    """Moves blocks between the primary (GPU) and secondary (host) pools on
    dedicated priority streams. The executor waits on the returned events."""

    def __init__(self, pool: BlockPool, compute_stream: int):
        self._pool = pool
        self._compute_stream = compute_stream
        self._streams = {
            "onboard": create_priority_stream(StreamPriority.HIGH),
            "offload": create_priority_stream(StreamPriority.LOW),
        }
        self._compute_ready = create_event()
        self._in_flight: list[_InFlight] = []

    def _wait_for_compute(self, stream: cudart.cudaStream_t) -> None:
        # the blocks we move were last touched by kernels on the compute stream
        CUASSERT(cudart.cudaEventRecord(self._compute_ready, self._compute_stream))
        CUASSERT(cudart.cudaStreamWaitEvent(stream, self._compute_ready, 0))

    def offload(self, block: KVCacheBlock) -> tuple[int, cudart.cudaEvent_t]:
        """Copy a primary block to the secondary pool and free its primary slot."""
        stream = self._streams["offload"]
        dst_index = self._pool.alloc_secondary()
        self._wait_for_compute(stream)
        CUASSERT(cudart.cudaMemcpyAsync(
            self._pool.ptr(CacheLevel.SECONDARY, dst_index),
            self._pool.ptr(CacheLevel.PRIMARY, block.pool_index),
            self._pool.block_bytes,
            cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost,
            stream,
        ))
        event = create_event()
        CUASSERT(cudart.cudaEventRecord(event, stream))
        self._in_flight.append(_InFlight(event, block))
        freed_index = block.pool_index
        block.level, block.pool_index = CacheLevel.SECONDARY, dst_index
        block.pending_offload = event
        return freed_index, event

    def onboard(self, block: KVCacheBlock, dst_index: int, after: cudart.cudaEvent_t | None) -> cudart.cudaEvent_t:
        """Bring a secondary block back into primary slot `dst_index`."""
        assert block.level is CacheLevel.SECONDARY
        stream = self._streams["onboard"]
        self._wait_for_compute(stream)
        # `after`: the slot's previous contents are still being offloaded;
        # pending_offload: our own host copy may not be complete yet
        for dependency in (after, block.pending_offload):
            if dependency is not None:
                CUASSERT(cudart.cudaStreamWaitEvent(stream, dependency, 0))
        src_index = block.pool_index
        CUASSERT(cudart.cudaMemcpyAsync(
            self._pool.ptr(CacheLevel.PRIMARY, dst_index),
            self._pool.ptr(CacheLevel.SECONDARY, src_index),
            self._pool.block_bytes,
            cudart.cudaMemcpyKind.cudaMemcpyHostToDevice,
            stream,
        ))
        event = create_event()
        CUASSERT(cudart.cudaEventRecord(event, stream))
        self._in_flight.append(_InFlight(event, block, release_secondary=src_index))
        block.level, block.pool_index = CacheLevel.PRIMARY, dst_index
        return event

    def retire_finished(self) -> None:
        still_running = []
        for transfer in self._in_flight:
            if not event_done(transfer.event):
                still_running.append(transfer)
                continue
            if transfer.release_secondary is not None:
                self._pool.free_secondary.append(transfer.release_secondary)
            if transfer.block.pending_offload is transfer.event:
                transfer.block.pending_offload = None
            CUASSERT(cudart.cudaEventDestroy(transfer.event))
        self._in_flight = still_running
