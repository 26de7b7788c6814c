"""Round-robin ring of GPU staging buffers shared by load and compute streams."""

from typing import List, Tuple

import torch


class StagingRing:
    """A slot is filled on the load stream, consumed by a scatter kernel on
    the compute stream and handed back with `release` once that kernel has
    been queued."""

    def __init__(self, num_slots: int, shape, dtype, device):
        self._bufs: List[torch.Tensor] = [
            torch.empty(shape, dtype=dtype, device=device)
            for _ in range(num_slots)
        ]
        self._released = [torch.cuda.Event() for _ in range(num_slots)]
        self._next = 0

    def __len__(self) -> int:
        return len(self._bufs)

    def acquire(self, stream: torch.cuda.Stream) -> Tuple[int, torch.Tensor]:
        """Next slot, to be filled on `stream`."""
        idx = self._next
        self._next = (idx + 1) % len(self._bufs)
        return idx, self._bufs[idx]

    def release(self, idx: int, consumer: torch.cuda.Stream) -> None:
        """Mark slot `idx` reusable once `consumer` is past its last reader."""
        self._released[idx].record(consumer)
