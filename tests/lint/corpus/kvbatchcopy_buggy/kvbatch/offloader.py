# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple
import logging
import queue
import threading

# Third Party
from cuda.bindings import driver

# First Party
from kvbatch.copier import BatchBlockCopier
from kvbatch.cuda_utils import check_cuda_errors
from kvbatch.host_pool import PinnedHostPool

logger = logging.getLogger(__name__)


@dataclass
class OffloadConfig:
    device_ordinal: int
    kv_base_ptr: int
    block_bytes: int
    num_host_slots: int = 4096


class KVBlockOffloader:
    """Copies paged KV blocks to pinned host slots on a worker thread.

    ``offload`` is called on the thread that drives ``compute_stream`` right
    after the step that wrote the blocks has been enqueued.
    """

    def __init__(self, config: OffloadConfig, context: "driver.CUcontext", compute_stream: "driver.CUstream"):
        self.config = config
        self.context = context
        self.compute_stream = compute_stream
        self.copy_stream = check_cuda_errors(
            driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value)
        )
        self.copier = BatchBlockCopier(config.device_ordinal)
        self.host_pool = PinnedHostPool(config.num_host_slots, config.block_bytes)
        self.committed: Dict[int, int] = {}
        self._lock = threading.Lock()
        self._requests: "queue.Queue[Optional[Tuple[List[int], driver.CUevent]]]" = queue.Queue()
        self._worker = threading.Thread(target=self._run, name="kv-offload", daemon=True)
        self._worker.start()

    def offload(self, block_ids: List[int]) -> None:
        ready = check_cuda_errors(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))
        check_cuda_errors(driver.cuEventRecord(ready, self.compute_stream))
        self._requests.put((list(block_ids), ready))

    def _run(self) -> None:
        check_cuda_errors(driver.cuCtxSetCurrent(self.context))
        done = check_cuda_errors(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))
        while True:
            item = self._requests.get()
            if item is None:
                break
            block_ids, ready = item
            with self._lock:
                block_ids = [b for b in block_ids if b not in self.committed]
            slots = self.host_pool.allocate(len(block_ids))
            srcs = [self.config.kv_base_ptr + b * self.config.block_bytes for b in block_ids]
            dsts = [self.host_pool.address(s) for s in slots]
            sizes = [self.config.block_bytes] * len(block_ids)
            check_cuda_errors(driver.cuStreamWaitEvent(self.copy_stream, ready, 0))
            self.copier.copy(dsts, srcs, sizes, self.copy_stream)
            check_cuda_errors(driver.cuEventRecord(done, self.copy_stream))
            check_cuda_errors(driver.cuEventSynchronize(done))
            check_cuda_errors(driver.cuEventDestroy(ready))
            with self._lock:
                for block_id, slot in zip(block_ids, slots):
                    self.committed[block_id] = slot
            logger.debug("Offloaded %d KV blocks", len(block_ids))

    def read_block(self, block_id: int) -> Optional[bytes]:
        with self._lock:
            slot = self.committed.get(block_id)
        return None if slot is None else self.host_pool.read(slot)

    def shutdown(self) -> None:
        self._requests.put(None)
        self._worker.join()
