# SPDX-License-Identifier: Apache-2.0
import logging
import queue
import threading
from dataclasses import dataclass

import torch

from .constants import COPY_THREAD_NAME, Direction
from .scheduler import TierConnectorMetadata
from .transfer import BatchTransfer

logger = logging.getLogger(__name__)


@dataclass
class _Job:
    job_id: int
    direction: Direction
    src_ids: list[int]
    dst_ids: list[int]


class TierWorker:
    def __init__(self, device: torch.device, num_cpu_blocks: int) -> None:
        self.device = torch.device(device)
        self.num_cpu_blocks = num_cpu_blocks
        dev_mod = torch.get_device_module(self.device)
        self._streams = {d: dev_mod.Stream(device=self.device) for d in Direction}
        self._queue: "queue.SimpleQueue[_Job | None]" = queue.SimpleQueue()
        self._inflight: dict[int, torch.Event] = {}
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._copy_loop, name=COPY_THREAD_NAME, daemon=True)

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        gpu = [t.view(torch.uint8).view(t.shape[0], -1) for t in kv_caches.values()]
        cpu = [torch.empty((self.num_cpu_blocks, g.shape[1]), dtype=torch.uint8,
                           device="cpu", pin_memory=True) for g in gpu]
        self._xfer = BatchTransfer(gpu, cpu)
        self._thread.start()

    def _fence(self, direction: Direction) -> None:
        self._streams[direction].wait_stream(torch.accelerator.current_stream(self.device))

    def start_load_kv(self, meta: TierConnectorMetadata) -> None:
        if not meta.loads:
            return
        self._fence(Direction.GPU_TO_CPU)
        for job_id, (src, dst) in meta.loads.items():
            self._queue.put(_Job(job_id, Direction.CPU_TO_GPU, src, dst))

    def wait_for_save(self, meta: TierConnectorMetadata) -> None:
        if not meta.stores:
            return
        self._fence(Direction.GPU_TO_CPU)
        for job_id, (src, dst) in meta.stores.items():
            self._queue.put(_Job(job_id, Direction.GPU_TO_CPU, src, dst))

    def _copy_loop(self) -> None:
        torch.accelerator.set_device_index(self.device.index)
        while (job := self._queue.get()) is not None:
            stream = self._streams[job.direction]
            handle = stream.cuda_stream
            if job.direction is Direction.GPU_TO_CPU:
                nbytes = self._xfer.store(job.src_ids, job.dst_ids, handle)
            else:
                nbytes = self._xfer.load(job.src_ids, job.dst_ids, handle)
            done = torch.Event()
            done.record(stream)
            with self._lock:
                self._inflight[job.job_id] = done
            logger.debug("job %d %s: %d bytes", job.job_id, job.direction.value, nbytes)

    def get_finished(self) -> set[int]:
        with self._lock:
            done = {j for j, ev in self._inflight.items() if ev.query()}
            for j in done:
                del self._inflight[j]
        return done

    def shutdown(self) -> None:
        self._queue.put(None)
        self._thread.join()
