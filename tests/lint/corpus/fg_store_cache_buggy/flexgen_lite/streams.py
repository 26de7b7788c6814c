"""The three I/O streams of the overlapped schedule, plus compute."""

import torch

from flexgen_lite.policy import NUM_BUFFERS


class ExecutionStreams:
    def __init__(self):
        self.compute = torch.cuda.current_stream()
        self.load_weight = torch.cuda.Stream()
        self.load_cache = torch.cuda.Stream()
        self.store_cache = torch.cuda.Stream()
        # Recorded on compute once slot p's weight/cache buffers are no longer read.
        self.buf_free = [torch.cuda.Event() for _ in range(NUM_BUFFERS)]
        # Recorded on compute once layer outputs in slot p are written.
        self.kv_ready = [torch.cuda.Event() for _ in range(NUM_BUFFERS)]

    def wait_loads(self):
        self.compute.wait_stream(self.load_weight)
        self.compute.wait_stream(self.load_cache)
        # The store of slot p must finish before compute overwrites it.
        self.compute.wait_stream(self.store_cache)

    def sync(self):
        torch.cuda.synchronize()
