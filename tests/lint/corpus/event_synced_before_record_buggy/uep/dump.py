"""Dumps a KV snapshot to disk from a writer thread: the engine copies the device buffer into
pinned memory on a side stream and hands the writer a completion event. Bug: the event goes on
the queue before it is recorded; synchronizing an event not recorded yet returns at once, so the
writer may read the pinned buffer while the copy is still landing (KVG003)."""

import queue
import threading

import torch


class Dumper:
    def __init__(self, n):
        self.gpu = torch.zeros(n, device="cuda")
        self.host = torch.empty(n, pin_memory=True)
        self.side = torch.cuda.Stream()
        self.jobs = queue.Queue()
        self.thread = threading.Thread(target=self._write, daemon=True)
        self.thread.start()

    def dump(self, path):
        self.gpu.add_(1)
        self.side.wait_stream(torch.cuda.current_stream())
        copied = torch.cuda.Event()
        with torch.cuda.stream(self.side):
            self.host.copy_(self.gpu, non_blocking=True)
        self.jobs.put((path, copied))
        copied.record(self.side)

    def _write(self):
        while True:
            path, copied = self.jobs.get()
            copied.synchronize()
            with open(path, "wb") as f:
                # expect: KVG003
                f.write(self.host.numpy().tobytes())
