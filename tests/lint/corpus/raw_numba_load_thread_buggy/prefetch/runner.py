"""The runner: launches decode kernels on its numba compute stream and asks the loader for
blocks. Demand loads record an event on the compute stream after the kernels that may still
read the reused blocks; prefetch loads (issued ahead, into blocks the scheduler just freed)
skip the event, which is the bug."""

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

    def demand_load(self, host_slots, gpu_blocks):
        ready = cuda.event(timing=False)
        ready.record(stream=self.compute)
        job = LoadJob(host_slots, gpu_blocks, ready)
        self.loader.submit(job)
        job.finished.wait()
        job.done.wait(stream=self.compute)

    def prefetch(self, host_slots, gpu_blocks):
        job = LoadJob(host_slots, gpu_blocks, None)
        self.loader.submit(job)
        return job

    def await_prefetch(self, job):
        job.finished.wait()
        job.done.wait(stream=self.compute)
