import queue
import threading

import torch

from .plans import build_plans


class IndexOffloader:
    def __init__(self, max_rows, backend):
        self.backend = backend
        self.index_stream = torch.cuda.Stream()
        self.snapshots = [torch.empty(max_rows, dtype=torch.int64, pin_memory=True) for _ in range(2)]
        self.jobs = queue.Queue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def submit(self, requests):
        indices_ready = torch.cuda.Event()
        indices_ready.record()
        self.jobs.put((requests, indices_ready))

    def stop(self):
        self.jobs.put(None)

    def _run(self):
        while True:
            job = self.jobs.get()
            if job is None:
                return
            requests, indices_ready = job
            indices_ready.synchronize()
            slot = 0

            def snapshot(indices):
                nonlocal slot
                pinned = self.snapshots[slot % 2]
                slot += 1
                return self._copy_indices(indices, pinned)

            plans = build_plans(requests, snapshot_indices=snapshot)
            for key, rows in plans:
                self.backend.put(key, rows.numpy())

    def _copy_indices(self, indices, pinned):
        count = indices.numel()
        with torch.cuda.stream(self.index_stream):
            pinned[:count].copy_(indices, non_blocking=True)
        self.index_stream.synchronize()
        return pinned[:count]
