import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Sequence

from . import cudart
from .block_pool import BlockPool
from .constants import CUDA_MEMCPY_DEVICE_TO_HOST, CUDA_MEMCPY_HOST_TO_DEVICE, ONBOARD_WORKERS

logger = logging.getLogger(__name__)


class HostOffloadManager:
    """Issues primary<->secondary block copies from a worker thread on private streams."""

    def __init__(self, pool: BlockPool):
        self.pool = pool
        self._offload_stream = cudart.stream_create()
        self._onboard_stream = cudart.stream_create()
        self._executor = ThreadPoolExecutor(ONBOARD_WORKERS, thread_name_prefix="kv_host_tier")

    def offload_async(self, primary_ids: Sequence[int], secondary_ids: Sequence[int],
                      compute_stream: int) -> Future:
        ready = cudart.event_create()
        cudart.event_record(ready, compute_stream)
        return self._executor.submit(self._offload_blocks, list(primary_ids), list(secondary_ids), ready)

    def onboard_async(self, secondary_ids: Sequence[int], compute_stream: int) -> Future:
        if len(secondary_ids) > self.pool.max_onboard_blocks:
            raise ValueError(f"cannot onboard {len(secondary_ids)} blocks at once")
        ready = cudart.event_create()
        cudart.event_record(ready, compute_stream)
        return self._executor.submit(self._onboard_blocks, list(secondary_ids), ready)

    def _offload_blocks(self, primary_ids, secondary_ids, ready) -> int:
        stream, nbytes = self._offload_stream, self.pool.block_nbytes
        cudart.stream_wait_event(stream, ready)
        for p, s in zip(primary_ids, secondary_ids):
            dst, src = self.pool.secondary_ptr(s), self.pool.primary_ptr(p)
            cudart.check(cudart.CUDART.cudaMemcpyAsync(dst, src, nbytes, CUDA_MEMCPY_DEVICE_TO_HOST, stream))
        done = cudart.event_create()
        cudart.event_record(done, stream)
        cudart.event_synchronize(done)
        for event in (ready, done):
            cudart.event_destroy(event)
        return len(primary_ids)

    def _onboard_blocks(self, secondary_ids, ready):
        stream, nbytes = self._onboard_stream, self.pool.block_nbytes
        cudart.stream_wait_event(stream, ready)
        for slot, s in enumerate(secondary_ids):
            dst, src = self.pool.staging_ptr(slot), self.pool.secondary_ptr(s)
            cudart.check(cudart.CUDART.cudaMemcpyAsync(dst, src, nbytes, CUDA_MEMCPY_HOST_TO_DEVICE, stream))
        done = cudart.event_create()
        cudart.event_record(done, stream)
        cudart.event_destroy(ready)
        logger.info("onboarded %d host blocks", len(secondary_ids))
        return done

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
