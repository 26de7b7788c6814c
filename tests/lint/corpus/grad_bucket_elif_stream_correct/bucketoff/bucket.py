"""Gradient buckets flushed to pinned host memory for a CPU optimizer. The copy runs on a
priority side stream, a plain side stream, or the compute stream itself, as configured."""

from typing import List

import torch


class GradBucket:
    def __init__(self, numel: int, device: torch.device, overlap: bool, high_priority: bool) -> None:
        self.flat = torch.zeros(numel, dtype=torch.float32, device=device)
        self.host = torch.empty(numel, dtype=torch.float32, pin_memory=True)
        self.overlap = overlap
        self.high_priority = high_priority
        self.side = torch.cuda.Stream(device=device)
        self.priority_side = torch.cuda.Stream(device=device, priority=-1)
        self.offset = 0

    def add(self, grad: torch.Tensor) -> None:
        n = grad.numel()
        self.flat[self.offset : self.offset + n].add_(grad.reshape(-1))
        self.offset += n

    def flush(self) -> torch.cuda.Event:
        if self.overlap and self.high_priority:
            stream = self.priority_side
            stream.wait_stream(torch.cuda.current_stream())
        elif self.overlap:
            stream = self.side
            stream.wait_stream(torch.cuda.current_stream())
        else:
            stream = torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            self.host.copy_(self.flat, non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        self.offset = 0
        return done


def flush_all(buckets: List[GradBucket]) -> List[torch.cuda.Event]:
    return [bucket.flush() for bucket in buckets]
