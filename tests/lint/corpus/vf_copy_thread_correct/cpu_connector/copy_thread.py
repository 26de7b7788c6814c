"""Background thread that drains SaveJobs onto a dedicated D2H stream."""

from __future__ import annotations

import queue
import threading

import torch
from vllm import _custom_ops as ops

from cpu_connector.metadata import SaveJob

_STOP = object()


class KVCopyThread(threading.Thread):
    def __init__(
        self,
        gpu_caches: dict[str, torch.Tensor],
        cpu_caches: dict[str, torch.Tensor],
        device: torch.device,
    ):
        super().__init__(name="kv-d2h-copy", daemon=True)
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.device = device
        self.jobs: queue.Queue = queue.Queue()
        self.stream = torch.cuda.Stream(device=device)
        self.done_events: dict[str, torch.cuda.Event] = {}
        self._lock = threading.Lock()

    def submit(self, job: SaveJob) -> None:
        self.jobs.put(job)

    def shutdown(self) -> None:
        self.jobs.put(_STOP)
        self.join()

    def run(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            job = self.jobs.get()
            try:
                if job is _STOP:
                    return
                self._copy(job)
            finally:
                self.jobs.task_done()

    def _copy(self, job: SaveJob) -> None:
        src = self.gpu_caches[job.layer_name]
        dst = self.cpu_caches[job.layer_name]
        with torch.cuda.stream(self.stream):
            job.ready.wait()
            ops.swap_blocks(src, dst, job.block_mapping)
            done = torch.cuda.Event()
            done.record()
        with self._lock:
            for req_id in job.req_ids:
                self.done_events[req_id] = done
