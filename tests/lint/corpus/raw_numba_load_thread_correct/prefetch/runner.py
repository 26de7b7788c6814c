"""The runner: launches decode kernels on its numba compute stream and asks the loader for
blocks. Demand loads and prefetch loads both record an event on the compute stream after the
kernels that may still read the reused blocks, and hand it to the loader."""

import numpy as np
from numba import cuda

from prefetch.loader import BlockLoader, LoadJob


class Runner:
    def __init__(self, decode_kernel, num_blocks, num_host_blocks, block_elems):
        self.decode_kernel = decode_kernel
        self.compute = cuda.stream()
        self.d_cache = cuda.device_array((num_blocks, block_elems), dtype=np.float16)
        self.h_cache = cuda.pinned_array((num_host_blocks, block_elems), dtype=np.float16)
        self.loader = BlockLoader(self.d_cache, self.h_cache)

    def decode(self, d_tables, d_out):
        self.decode_kernel[d_out.shape[0], 128, self.compute](self.d_cache, d_tables, d_out)

    def _ready(self):
        ready = cuda.event(timing=False)
        ready.record(stream=self.compute)
        return ready

    def demand_load(self, host_slots, gpu_blocks):
        job = LoadJob(host_slots, gpu_blocks, self._ready())
        self.loader.submit(job)
        job.finished.wait()
        job.done.wait(stream=self.compute)

    def prefetch(self, host_slots, gpu_blocks):
        job = LoadJob(host_slots, gpu_blocks, self._ready())
        self.loader.submit(job)
        return job

    def await_prefetch(self, job):
        job.finished.wait()
        job.done.wait(stream=self.compute)
