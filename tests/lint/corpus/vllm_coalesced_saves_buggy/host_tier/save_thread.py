"""The save thread. Jobs arrive once per step; when the thread falls behind, the jobs that
have piled up are coalesced into a single cuMemcpyBatchAsync, which is far cheaper than one
call per step for the small per-step saves of decode-heavy traffic."""

import queue
import threading
from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch

from host_tier import cu_batch


@dataclass
class SaveJob:
    step: int
    req_ids: List[str]
    srcs: List[int]
    dsts: List[int]
    sizes: List[int]
    ready: torch.cuda.Event  # recorded on the compute stream after the step's forward pass


class SaveThread:
    def __init__(self, device: torch.device, max_coalesce: int):
        self.device = device
        self.max_coalesce = max_coalesce
        self.stream = torch.cuda.Stream(device=device, priority=0)
        self.attrs = cu_batch.device_to_host_attrs(device.index or 0)
        self.jobs: "queue.Queue[Optional[SaveJob]]" = queue.Queue()
        self.completed: "queue.Queue[Tuple[List[str], torch.cuda.Event]]" = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="kv-host-save", daemon=True)
        self._thread.start()

    def submit(self, job: SaveJob) -> None:
        self.jobs.put(job)

    def stop(self) -> None:
        self.jobs.put(None)
        self._thread.join()

    def _take_batch(self) -> List[Optional[SaveJob]]:
        batch = [self.jobs.get()]
        while len(batch) < self.max_coalesce:
            try:
                batch.append(self.jobs.get_nowait())
            except queue.Empty:
                break
        return batch

    def _run(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            batch = self._take_batch()
            jobs = [j for j in batch if j is not None]
            if jobs:
                # jobs are queued in step order on one compute stream
                self.stream.wait_event(jobs[0].ready)
                srcs = [p for j in jobs for p in j.srcs]
                dsts = [p for j in jobs for p in j.dsts]
                sizes = [n for j in jobs for n in j.sizes]
                cu_batch.memcpy_batch(dsts, srcs, sizes, self.attrs, self.stream.cuda_stream)
                done = torch.cuda.Event()
                done.record(self.stream)
                self.completed.put(([r for j in jobs for r in j.req_ids], done))
            if len(jobs) < len(batch):
                return
