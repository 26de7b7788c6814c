"""A background swap worker in the shape of DeepSpeed's pipelined optimizer swapper: requests
arrive on a queue, each names device tensors, the pinned buffers to copy them into, and an event
the trainer recorded on its compute stream after the update; the worker makes its swap stream wait
on that event before the copies."""

import queue
import threading

import torch


class SwapWorker:
    def __init__(self, device):
        self.device = device
        self.swap_stream = torch.cuda.Stream(device=device)
        self.requests = queue.Queue()
        self.completed = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="swap-worker", daemon=True)
        self.thread.start()

    def submit(self, request_id, pairs, ready):
        self.requests.put((request_id, pairs, ready))

    def _run(self):
        torch.cuda.set_device(self.device)
        while True:
            item = self.requests.get()
            if item is None:
                return
            request_id, pairs, ready = item
            self.swap_stream.wait_event(ready)
            with torch.cuda.stream(self.swap_stream):
                for device_tensor, pinned in pairs:
                    pinned.copy_(device_tensor, non_blocking=True)
            done = torch.cuda.Event()
            done.record(self.swap_stream)
            self.completed.put((request_id, done))
