"""A pool of device blocks updated by a kernel on a compute stream and swapped to pinned
host memory on a copy stream."""

import numpy as np
from numba import cuda

from nbswap.kernels import decay


class BlockSwapper:
    def __init__(self, n_blocks, block_elems, threads=256):
        self.compute = cuda.stream()
        self.copy = cuda.stream()
        self.d_blocks = cuda.device_array((n_blocks, block_elems), dtype=np.float32)
        self.h_blocks = cuda.pinned_array((n_blocks, block_elems), dtype=np.float32)
        self.threads = threads

    def update(self, idx, factor):
        grid = (self.d_blocks.shape[1] + self.threads - 1) // self.threads
        decay[grid, self.threads, self.compute](self.d_blocks[idx], factor)

    def swap_out(self, idx):
        written = cuda.event()
        written.record(self.compute)
        written.wait(self.copy)
        self.d_blocks[idx].copy_to_host(self.h_blocks[idx], stream=self.copy)
        done = cuda.event()
        done.record(self.copy)
        done.wait(self.compute)
        return done

    def swap_in(self, idx, src):
        reads_done = cuda.event()
        reads_done.record(self.compute)
        reads_done.wait(self.copy)
        self.d_blocks[idx].copy_to_device(self.h_blocks[src], stream=self.copy)
        loaded = cuda.event()
        loaded.record(self.copy)
        loaded.wait(self.compute)

    def checksum(self, idx):
        done = self.swap_out(idx)
        done.synchronize()
        return float(self.h_blocks[idx].sum())
