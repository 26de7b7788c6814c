"""CUDA streams of the offloading schedule (cupy)."""
from __future__ import annotations

import cupy as cp


class StreamSet:

    def __init__(self, device_id: int = 0):
        with cp.cuda.Device(device_id):
            self.compute = cp.cuda.Stream(non_blocking=True)
            self.load_weight = cp.cuda.Stream(non_blocking=True)
            self.store_cache = cp.cuda.Stream(non_blocking=True)

    def synchronize(self) -> None:
        for stream in (self.compute, self.load_weight, self.store_cache):
            stream.synchronize()
