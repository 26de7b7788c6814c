"""The copy thread. It takes (host slice, device slice) jobs off a queue and issues each one on
its own copy stream, so the compute thread never blocks on a device-to-host transfer."""

import queue
import threading
from typing import NamedTuple

import torch


class MirrorJob(NamedTuple):
    layer: int
    position: int
    host_dst: torch.Tensor
    device_src: torch.Tensor
    # recorded on the compute thread's stream right after the layer wrote device_src
    written: torch.cuda.Event


class CopyWorker:
    def __init__(self, device):
        self.device = torch.device(device)
        self.jobs = queue.Queue()
        self.thread = threading.Thread(target=self._loop, name="kv-mirror", daemon=True)
        self.thread.start()

    def submit(self, job: MirrorJob):
        self.jobs.put(job)

    def join(self):
        # every queued job has been issued and has completed on the copy stream
        self.jobs.join()

    def close(self):
        self.jobs.put(None)
        self.thread.join()

    def _loop(self):
        torch.cuda.set_device(self.device)
        copy_stream = torch.cuda.Stream(self.device)
        while True:
            job = self.jobs.get()
            if job is None:
                self.jobs.task_done()
                return
            # the copy must not start before the layer that wrote this KV slice has run;
            # that layer ran on the compute thread's stream, not on this thread's
            copy_stream.wait_event(job.written)
            with torch.cuda.stream(copy_stream):
                job.host_dst.copy_(job.device_src, non_blocking=True)
            copy_stream.synchronize()
            self.jobs.task_done()
