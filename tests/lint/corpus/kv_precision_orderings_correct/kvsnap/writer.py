"""Background writer of KV snapshots: the compute thread records an event after the snapshot
is taken and hands it over with the tensor; the writer thread waits on it before copying."""

import queue
import threading

import torch


class SnapshotWriter:
    def __init__(self, path):
        self.copy_stream = torch.cuda.Stream()
        self.requests = queue.Queue()
        self.file = open(path, "ab")
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def submit(self, gpu_tensor):
        snapshot = gpu_tensor.detach().clone()
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.requests.put((ready, snapshot))

    def close(self):
        self.requests.put(None)
        self.thread.join()
        self.file.close()

    def _run(self):
        while True:
            item = self.requests.get()
            if item is None:
                return
            ready, snapshot = item
            host = torch.empty(snapshot.shape, dtype=snapshot.dtype, pin_memory=True)
            self.copy_stream.wait_event(ready)
            with torch.cuda.stream(self.copy_stream):
                host.copy_(snapshot, non_blocking=True)
                done = torch.cuda.Event()
                done.record()
            done.synchronize()
            self.file.write(host.numpy().tobytes())
