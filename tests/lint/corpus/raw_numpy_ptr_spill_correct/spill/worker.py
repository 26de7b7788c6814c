"""A spill thread that copies evicted KV blocks into pinned staging slots and appends them to
a file. Addresses are numpy ``uint64`` tables built from the pools' ``data_ptr()``; each
block is one runtime ``cudaMemcpyAsync`` on a stream made with ``cudaStreamCreate``, after
the stream waits on the engine's event. The host synchronises on the completion event before
it reads the staged bytes."""

import queue
import threading

import numpy as np
import torch
from cuda.bindings import runtime as cudart

from spill.runtime import rt


class Spiller:
    def __init__(self, kv, num_slots, block_bytes, path):
        self.block_bytes = block_bytes
        self.device_base = kv.data_ptr()
        self.staging = torch.empty((num_slots, block_bytes), dtype=torch.uint8, pin_memory=True)
        self.staging_view = self.staging.numpy()
        self.host_base = self.staging.data_ptr()
        self.stream = rt(cudart.cudaStreamCreate())
        self.done = rt(cudart.cudaEventCreate())
        self.jobs = queue.Queue()
        self.out = open(path, "ab")
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def submit(self, blocks, ready):
        self.jobs.put((blocks, ready))

    def _run(self):
        while True:
            blocks, ready = self.jobs.get()
            count = len(blocks)
            stride = np.uint64(self.block_bytes)
            src = np.uint64(self.device_base) + np.asarray(blocks, dtype=np.uint64) * stride
            dst = np.uint64(self.host_base) + np.arange(count, dtype=np.uint64) * stride
            rt(cudart.cudaStreamWaitEvent(self.stream, ready, 0))
            for i in range(count):
                rt(cudart.cudaMemcpyAsync(
                    int(dst[i]), int(src[i]), self.block_bytes,
                    cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, self.stream,
                ))
            rt(cudart.cudaEventRecord(self.done, self.stream))
            rt(cudart.cudaEventSynchronize(self.done))
            for slot in range(count):
                self.out.write(self.staging_view[slot].tobytes())
