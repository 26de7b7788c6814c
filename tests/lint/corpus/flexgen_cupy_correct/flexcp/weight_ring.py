from __future__ import annotations

import cupy as cp
import numpy as np


class WeightRing:
    """Fixed device slots that layer weights are streamed through."""

    def __init__(self, num_slots: int, slot_bytes: int):
        self.num_slots = num_slots
        self.slots = cp.empty((num_slots, slot_bytes), dtype=cp.uint8)
        self.ready = [cp.cuda.Event(disable_timing=True) for _ in range(num_slots)]
        self.consumed = [cp.cuda.Event(disable_timing=True) for _ in range(num_slots)]

    def slot_of(self, layer: int) -> int:
        return layer % self.num_slots

    def prefetch(self, slot: int, host_weight: np.ndarray,
                 stream: cp.cuda.Stream) -> None:
        flat = host_weight.view(np.uint8).reshape(-1)
        stream.wait_event(self.consumed[slot])
        self.slots[slot, :flat.size].set(flat, stream=stream)
        self.ready[slot].record(stream)

    def view(self, slot: int, shape: tuple[int, ...], dtype) -> cp.ndarray:
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        return self.slots[slot, :nbytes].view(dtype).reshape(shape)
