"""A background swap worker in the shape of DeepSpeed's pipelined optimizer swapper: requests
arrive on a queue, each names device tensors and the pinned buffers to copy them into, and the
worker issues the copies on its own swap stream. Bug: the worker orders its stream with
``wait_stream(torch.cuda.current_stream())`` on ITS thread, where the current stream is the
default stream, not the trainer's compute stream that wrote the tensors."""

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

    def submit(self, request_id, pairs):
        self.requests.put((request_id, pairs))

    def _run(self):
        torch.cuda.set_device(self.device)
        while True:
            item = self.requests.get()
            if item is None:
                return
            request_id, pairs = item
            self.swap_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.swap_stream):
                for device_tensor, pinned in pairs:
                    # expect: KVG001
                    pinned.copy_(device_tensor, non_blocking=True)
            done = torch.cuda.Event()
            done.record(self.swap_stream)
            self.completed.put((request_id, done))
