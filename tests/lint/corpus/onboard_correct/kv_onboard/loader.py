import logging
import queue
import threading
from dataclasses import dataclass, field
from typing import Any, List, Optional

import torch

from .device import bind_thread, device_module

logger = logging.getLogger(__name__)


@dataclass
class OnboardJob:
    request_id: int
    host_slots: List[int]
    block_ids: List[int]
    ready: Optional[Any] = None
    finished: Optional[Any] = None
    done: threading.Event = field(default_factory=threading.Event)


class HostToDeviceLoader(threading.Thread):

    def __init__(self, gpu_blocks: torch.Tensor, host_blocks: torch.Tensor,
                 jobs: "queue.Queue[OnboardJob]"):
        super().__init__(name="kv-onboard", daemon=True)
        self.gpu_blocks = gpu_blocks
        self.host_blocks = host_blocks
        self.jobs = jobs
        self._device_index = gpu_blocks.device.index or 0
        self._dm = device_module()
        self._stream = None

    def run(self) -> None:
        bind_thread(self._device_index)
        self._stream = self._dm.Stream()
        while True:
            job = self.jobs.get()
            if job is None:
                return
            try:
                self._load(job)
            except Exception:
                logger.exception("onboard of request %d failed", job.request_id)
            finally:
                job.done.set()

    def _load(self, job: OnboardJob) -> None:
        if job.ready is not None:
            self._stream.wait_event(job.ready)
        with self._dm.stream(self._stream):
            for slot, block in zip(job.host_slots, job.block_ids):
                self.gpu_blocks[block].copy_(self.host_blocks[slot], non_blocking=True)
            finished = self._dm.Event()
            finished.record(self._stream)
        job.finished = finished
