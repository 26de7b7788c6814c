"""A loader thread that onboards KV blocks into a numba device cache from a pinned pool,
serving jobs from a queue on its own ``cuda.stream()``. A job carries the event the runner
recorded on its compute stream; the loader waits on it (``e.wait(stream=load)``) when there
is one. ``cuda.to_device(..., stream=load)`` fills a freshly allocated staging array, which
no kernel can be reading. Bug: prefetch jobs arrive without an event (see runner.py), so
their ``copy_to_device`` into reused cache blocks is not ordered behind the compute stream."""

import queue
import threading

from numba import cuda


class LoadJob:
    def __init__(self, host_slots, gpu_blocks, ready):
        self.host_slots = host_slots
        self.gpu_blocks = gpu_blocks
        self.ready = ready
        self.done = cuda.event(timing=False)
        self.finished = threading.Event()


class BlockLoader:
    def __init__(self, d_cache, h_cache):
        self.d_cache = d_cache
        self.h_cache = h_cache
        self.load = cuda.stream()
        self.jobs = queue.Queue()
        self.worker = threading.Thread(target=self._serve, daemon=True)
        self.worker.start()

    def submit(self, job):
        self.jobs.put(job)

    def _serve(self):
        while True:
            job = self.jobs.get()
            if job.ready is not None:
                job.ready.wait(stream=self.load)
            for host_slot, gpu_block in zip(job.host_slots, job.gpu_blocks):
                # expect: KVG004
                self.d_cache[gpu_block].copy_to_device(self.h_cache[host_slot], stream=self.load)
            job.done.record(stream=self.load)
            job.finished.set()

    def stage(self, host_slot):
        """A private device copy of one host block, for inspection kernels."""
        return cuda.to_device(self.h_cache[host_slot], stream=self.load)
