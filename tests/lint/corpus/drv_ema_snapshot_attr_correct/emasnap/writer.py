"""Background thread that writes finished EMA snapshots to disk."""
import os
import queue
import threading

import torch
from cuda.bindings import driver

from .cuda_utils import check


class SnapshotWriter(threading.Thread):
    def __init__(self, out_dir, names, host_tensors):
        super().__init__(name="ema-writer", daemon=True)
        self.out_dir = out_dir
        self.names = names
        self.host_tensors = host_tensors
        self.jobs = queue.Queue()

    def submit(self, step, copied_event):
        self.jobs.put((step, copied_event))

    def wait_idle(self):
        self.jobs.join()

    def run(self):
        while True:
            step, copied_event = self.jobs.get()
            try:
                check(driver.cuEventSynchronize(copied_event))
                state = dict(zip(self.names, self.host_tensors))
                torch.save(state, os.path.join(self.out_dir, f"ema-{step:08d}.pt"))
            finally:
                self.jobs.task_done()
