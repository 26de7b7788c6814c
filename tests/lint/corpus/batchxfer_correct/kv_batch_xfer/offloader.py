from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict, List, Sequence

from cuda.bindings import driver

from kv_batch_xfer.attrs import device_to_host_attributes
from kv_batch_xfer.constants import DEFAULT_HOST_SLOTS, DEFAULT_IO_THREADS
from kv_batch_xfer.cuda_utils import TransferStream, check, logger
from kv_batch_xfer.host_slab import PinnedHostSlab


@dataclass
class TransferConfig:
    device_ordinal: int
    page_bytes: int
    host_slots: int = DEFAULT_HOST_SLOTS
    io_threads: int = DEFAULT_IO_THREADS
    prefer_overlap: bool = True


class BatchedPageOffloader:
    """Copies KV pages of a paged device pool into pinned host slots with one
    cuMemcpyBatchAsync per request, then hands the bytes to a host store."""

    def __init__(self, config: TransferConfig, kv_pool_base: int):
        self.config = config
        self.kv_pool_base = kv_pool_base
        err, self._ctx = driver.cuCtxGetCurrent()
        check(err)
        self.stream = TransferStream()
        self.slab = PinnedHostSlab(config.page_bytes, config.host_slots)
        self.attrs = device_to_host_attributes(config.device_ordinal, config.prefer_overlap)
        self.host_store: Dict[int, bytes] = {}
        self._io = ThreadPoolExecutor(max_workers=config.io_threads, thread_name_prefix="kv-offload")

    def offload_pages(self, page_ids: Sequence[int], producer_stream: int) -> Future:
        producer = driver.CUstream(producer_stream)
        slots = self.slab.take(len(page_ids))
        srcs = [driver.CUdeviceptr(self.kv_pool_base + p * self.config.page_bytes) for p in page_ids]
        dsts = [driver.CUdeviceptr(self.slab.address(s)) for s in slots]
        sizes = [self.config.page_bytes] * len(page_ids)

        self.stream.wait_for(producer)
        result = driver.cuMemcpyBatchAsync(
            dsts, srcs, sizes, len(page_ids), [self.attrs], [0], 1, self.stream.handle
        )
        check(result[0])
        done = self.stream.record()
        (err,) = driver.cuStreamWaitEvent(producer, done, 0)
        check(err)
        return self._io.submit(self._finish, list(page_ids), slots, done)

    def _finish(self, page_ids: List[int], slots: List[int], done) -> int:
        (err,) = driver.cuCtxSetCurrent(self._ctx)
        check(err)
        (err,) = driver.cuEventSynchronize(done)
        check(err)
        for page_id, slot in zip(page_ids, slots):
            self.host_store[page_id] = self.slab.read(slot)
        self.slab.give_back(slots)
        driver.cuEventDestroy(done)
        logger.debug("offloaded %d pages", len(page_ids))
        return len(page_ids)
