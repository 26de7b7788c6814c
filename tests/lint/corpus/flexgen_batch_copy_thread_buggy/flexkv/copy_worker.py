"""A copy thread: takes store/load jobs off a queue and issues each as one batched copy on its
own stream, after making that stream wait on the job's ``ready`` event (recorded by the
compute thread when it queued the job)."""

import queue
import threading
from dataclasses import dataclass, field

import torch
from cuda.bindings import runtime as cudart

from .cuda_batch import LOAD_SRC_ORDER, STORE_SRC_ORDER, batch_copy, make_attrs


@dataclass
class CopyJob:
    kind: str
    dst_ptrs: list
    src_ptrs: list
    sizes: list
    ready: torch.cuda.Event
    done: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    issued: threading.Event = field(default_factory=threading.Event)


class CopyWorker:
    def __init__(self, device):
        self.stream = torch.cuda.Stream(device)
        self._handle = cudart.cudaStream_t(self.stream.cuda_stream)
        self._store_attrs = make_attrs(STORE_SRC_ORDER)
        self._load_attrs = make_attrs(LOAD_SRC_ORDER)
        self._jobs = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="flexkv-copy", daemon=True)
        self._thread.start()

    def submit(self, job):
        self._jobs.put(job)
        return job

    def _run(self):
        while True:
            job = self._jobs.get()
            if job is None:
                break
            self.stream.wait_event(job.ready)
            attrs = self._store_attrs if job.kind == "store" else self._load_attrs
            batch_copy(job.dst_ptrs, job.src_ptrs, job.sizes, attrs, self._handle)
            job.done.record(self.stream)
            job.issued.set()

    def close(self):
        self._jobs.put(None)
        self._thread.join()
