"""A pool of stream leases; one lease serves one request at a time."""

import asyncio
from contextlib import asynccontextmanager
from dataclasses import dataclass

import numpy as np
from numba import cuda


@dataclass
class Lease:
    index: int
    stream: object
    host_scores: np.ndarray
    hist_written: object  # event recorded on ``stream`` after its histogram update

    @property
    def capacity(self):
        return self.host_scores.shape[0]


class LeasePool:
    def __init__(self, size, max_rows):
        self.leases = [
            Lease(i, cuda.stream(), cuda.pinned_array(max_rows, dtype=np.float32), cuda.event(timing=False))
            for i in range(size)
        ]
        self.free = asyncio.Queue()
        for lease in self.leases:
            self.free.put_nowait(lease)

    @asynccontextmanager
    async def lease(self):
        lease = await self.free.get()
        try:
            yield lease
        finally:
            self.free.put_nowait(lease)
