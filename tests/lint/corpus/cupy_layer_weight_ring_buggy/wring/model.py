"""A residual MLP stack too large for the GPU: its layer weights stream through two device
slots while the previous layer computes."""

from dataclasses import dataclass
from typing import List

import cupy
import numpy as np

from .host_weights import HostLayer


@dataclass
class _DeviceSlot:
    w_in: cupy.ndarray
    w_out: cupy.ndarray


class StreamedMLP:
    def __init__(self, host_layers: List[HostLayer], hidden: int, ffn: int, dtype=np.float16):
        self.host_layers = host_layers
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.loader = cupy.cuda.Stream(non_blocking=True)
        self.slots = [
            _DeviceSlot(cupy.empty((hidden, ffn), dtype=dtype), cupy.empty((ffn, hidden), dtype=dtype))
            for _ in range(2)
        ]
        self.loaded = [cupy.cuda.Event(disable_timing=True) for _ in range(2)]
        self.released = [cupy.cuda.Event(disable_timing=True) for _ in range(2)]

    def _prefetch(self, layer: int) -> None:
        slot = layer % 2
        host = self.host_layers[layer]
        dev = self.slots[slot]
        # expect: KVG004
        dev.w_in.set(host.w_in, stream=self.loader)
        # expect: KVG004
        dev.w_out.set(host.w_out, stream=self.loader)
        self.loaded[slot].record(self.loader)

    def forward(self, batch: np.ndarray) -> np.ndarray:
        n = len(self.host_layers)
        self._prefetch(0)
        with self.compute:
            x = cupy.asarray(batch)
        for layer in range(n):
            slot = layer % 2
            if layer + 1 < n:
                self._prefetch(layer + 1)
            self.compute.wait_event(self.loaded[slot])
            with self.compute:
                w = self.slots[slot]
                h = cupy.maximum(x @ w.w_in, 0)
                x = x + h @ w.w_out
                self.released[slot].record(self.compute)
        return x.get(stream=self.compute)
