"""Dumps a KV snapshot to disk from a writer thread: the engine copies the device buffer into
pinned memory on a side stream and hands the writer a completion event. The event is recorded on
the side stream after the copy and before the hand-off, so the writer's synchronize waits for
the copy."""

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
        copied.record(self.side)
        self.jobs.put((path, copied))

    def _write(self):
        while True:
            path, copied = self.jobs.get()
            copied.synchronize()
            with open(path, "wb") as f:
                f.write(self.host.numpy().tobytes())
