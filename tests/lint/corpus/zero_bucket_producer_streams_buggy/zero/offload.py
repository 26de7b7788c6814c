"""Reduce a full bucket and copy it to the host for the CPU optimizer step."""

import torch

from zero.bucket import GradBucket


class BucketOffloader:
    def __init__(self, numel: int, device: torch.device) -> None:
        self.reduction_stream = torch.cuda.Stream(device=device)
        self.bucket = GradBucket(numel, device)
        self.host_grads = torch.empty(numel, pin_memory=True)
        self.done = torch.cuda.Event()

    def on_grad_ready(self, grad: torch.Tensor) -> None:
        self.bucket.add(grad)

    def flush(self, scale: float) -> torch.cuda.Event:
        stream = self.reduction_stream
        with torch.cuda.stream(stream):
            self.bucket.buffer.mul_(scale)
            # expect: KVG001
            self.host_grads.copy_(self.bucket.buffer, non_blocking=True)
            self.done.record(stream)
        self.bucket.reset()
        return self.done
