"""One copy thread per direction. A job carries the block addresses and the event the worker
recorded on its compute stream when it queued the job; the thread makes its stream wait on
that event, issues one cudaMemcpyBatchAsync and records the job's completion event."""

import queue
import threading
from dataclasses import dataclass, field
from typing import List, Optional

import torch

from cpu_offload import cudart


@dataclass
class TransferJob:
    job_id: int
    dsts: List[int]
    srcs: List[int]
    sizes: List[int]
    ready: torch.cuda.Event
    done: torch.cuda.Event = field(default_factory=torch.cuda.Event)


class TransferThread(threading.Thread):
    def __init__(self, name: str, device: torch.device, src_order: cudart.cudaMemcpySrcAccessOrder,
                 src_is_device: bool, prefer_overlap: bool):
        super().__init__(name=f"kv-offload-{name}", daemon=True)
        self.device = device
        self.stream = torch.cuda.Stream(device=device)
        gpu = cudart.cudaMemLocation(type=cudart.cudaMemLocationType.Device, id=device.index or 0)
        host = cudart.cudaMemLocation(type=cudart.cudaMemLocationType.Host, id=0)
        self.attrs = cudart.cudaMemcpyAttributes(
            srcAccessOrder=int(src_order),
            srcLocHint=gpu if src_is_device else host,
            dstLocHint=host if src_is_device else gpu,
            flags=1 if prefer_overlap else 0,
        )
        self.jobs: "queue.SimpleQueue[Optional[TransferJob]]" = queue.SimpleQueue()
        self.finished: "queue.SimpleQueue[int]" = queue.SimpleQueue()

    def submit(self, job: TransferJob) -> None:
        self.jobs.put(job)

    def run(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            job = self.jobs.get()
            if job is None:
                break
            self.stream.wait_event(job.ready)
            cudart.memcpy_batch_async(job.dsts, job.srcs, job.sizes, self.attrs, self.stream.cuda_stream)
            job.done.record(self.stream)
            job.done.synchronize()
            self.finished.put(job.job_id)

    def shutdown(self) -> None:
        self.jobs.put(None)
        self.join()
