from __future__ import annotations

from typing import Sequence

import torch


class PinnedSnapshot:
    """Page-locked fp32 host mirror of a list of device tensors."""

    def __init__(self, tensors: Sequence[torch.Tensor]):
        self.buffers = [
            torch.empty(t.shape, dtype=torch.float32, device="cpu", pin_memory=True) for t in tensors
        ]

    def capture(self, tensors: Sequence[torch.Tensor], stream: torch.cuda.Stream) -> torch.cuda.Event:
        """Enqueue device->host copies on ``stream`` and return an event marking their completion."""
        with torch.cuda.stream(stream):
            for buf, t in zip(self.buffers, tensors):
                buf.copy_(t.detach(), non_blocking=True)
            done = torch.cuda.Event()
            done.record(stream)
        return done
