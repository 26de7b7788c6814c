"""Background thread that copies retired sequences' blocks to pinned memory."""

import queue
import threading
from dataclasses import dataclass
from typing import Callable, List, Optional

import cupy

from .cache import PagedKVCache
from .config import DEVICE_ID


@dataclass
class SwapOutJob:
    seq_id: int
    gpu_blocks: List[int]
    host_slots: List[int]
    ready: cupy.cuda.Event  # recorded on the compute stream


class SwapWorker(threading.Thread):
    def __init__(self, cache: PagedKVCache,
                 on_done: Callable[[int, List[int], cupy.cuda.Event], None]):
        super().__init__(name="kv-swap", daemon=True)
        self.cache = cache
        self.on_done = on_done
        self.jobs: "queue.Queue[Optional[SwapOutJob]]" = queue.Queue()
        with cupy.cuda.Device(DEVICE_ID):
            self.stream = cupy.cuda.Stream(non_blocking=True)

    def run(self) -> None:
        with cupy.cuda.Device(DEVICE_ID):
            while True:
                job = self.jobs.get()
                if job is None:
                    break
                self._swap_out(job)

    def _swap_out(self, job: SwapOutJob) -> None:
        self.stream.wait_event(job.ready)
        with self.stream:
            for gpu_block, slot in zip(job.gpu_blocks, job.host_slots):
                self.cache.gpu_blocks[gpu_block].get(
                    stream=self.stream, out=self.cache.host_blocks[slot], blocking=False
                )
        done = self.stream.record()
        self.on_done(job.seq_id, job.host_slots, done)

    def stop(self) -> None:
        self.jobs.put(None)
        self.join()
