"""Per-step metadata copied from the GPU into pinned buffers the context object holds, in the
shape dynamic-batching controllers use; the host reads it before the copy is known done."""

import torch


class StepContext:
    def __init__(self, max_requests):
        self.lengths_gpu = torch.zeros(max_requests, dtype=torch.int32, device="cuda")
        self.lengths_host = torch.zeros(max_requests, dtype=torch.int32, pin_memory=True)

    def init_step(self, count):
        self.lengths_host[:count].copy_(self.lengths_gpu[:count], non_blocking=True)
        # expect: KVG003
        lengths = self.lengths_host[:count].tolist()
        return sum(lengths)

    def first_length(self):
        self.lengths_host[:1].copy_(self.lengths_gpu[:1], non_blocking=True)
        # expect: KVG003
        return int(self.lengths_host[0])
