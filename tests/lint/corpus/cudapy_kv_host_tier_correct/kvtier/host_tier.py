import logging
import queue
import threading
from dataclasses import dataclass
from typing import Callable

from cuda.bindings import driver

from .constants import OFFLOAD_QUEUE_DEPTH
from .copier import BatchedBlockCopier
from .cuda_utils import check, create_event

logger = logging.getLogger("tensorrt_llm")


@dataclass(frozen=True)
class HostTierConfig:
    num_host_blocks: int
    block_bytes: int
    primary_base_ptr: int


@dataclass
class _OffloadItem:
    primary_blocks: list[int]
    host_blocks: list[int]
    ready: driver.CUevent


class HostKVTier:

    def __init__(self, cfg: HostTierConfig, on_offloaded: Callable[[list[int], list[int]], None]):
        self.cfg = cfg
        self._host_base = check(
            driver.cuMemHostAlloc(cfg.num_host_blocks * cfg.block_bytes, driver.CU_MEMHOSTALLOC_PORTABLE)
        )
        self._ctx = check(driver.cuCtxGetCurrent())
        self._copier = BatchedBlockCopier()
        self._on_offloaded = on_offloaded
        self._queue: "queue.Queue[_OffloadItem | None]" = queue.Queue(maxsize=OFFLOAD_QUEUE_DEPTH)
        self._worker = threading.Thread(target=self._run, name="kv-offload", daemon=True)
        self._worker.start()

    def _primary_ptr(self, block: int) -> int:
        return self.cfg.primary_base_ptr + block * self.cfg.block_bytes

    def _host_ptr(self, block: int) -> int:
        return int(self._host_base) + block * self.cfg.block_bytes

    def evict(self, primary_blocks: list[int], host_blocks: list[int], compute: driver.CUstream) -> None:
        ready = create_event()
        check(driver.cuEventRecord(ready, compute))
        self._queue.put(_OffloadItem(primary_blocks, host_blocks, ready))

    def _run(self) -> None:
        check(driver.cuCtxSetCurrent(self._ctx))
        while True:
            item = self._queue.get()
            if item is None:
                return
            done = self._copier.offload(
                [self._host_ptr(b) for b in item.host_blocks],
                [self._primary_ptr(b) for b in item.primary_blocks],
                self.cfg.block_bytes,
                item.ready,
            )
            check(driver.cuEventSynchronize(done))
            check(driver.cuEventDestroy(done))
            check(driver.cuEventDestroy(item.ready))
            self._on_offloaded(item.primary_blocks, item.host_blocks)

    def onboard(self, host_blocks: list[int], primary_blocks: list[int], compute: driver.CUstream) -> None:
        ready = create_event()
        check(driver.cuEventRecord(ready, compute))
        done = self._copier.onboard(
            [self._primary_ptr(b) for b in primary_blocks],
            [self._host_ptr(b) for b in host_blocks],
            self.cfg.block_bytes,
            ready,
        )
        check(driver.cuStreamWaitEvent(compute, done, 0))
        check(driver.cuEventDestroy(ready))
        check(driver.cuEventDestroy(done))
        logger.debug("onboarded %d blocks", len(primary_blocks))

    def shutdown(self) -> None:
        self._queue.put(None)
        self._worker.join()
