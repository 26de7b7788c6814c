"""The handler the connector worker calls: store_async after a forward, load_async before one,
get_finished to learn which jobs are done."""

from concurrent.futures import ThreadPoolExecutor

import torch

from cpu_offload.batch_copy import BatchCopier
from cpu_offload.pointers import block_addresses


class CpuGpuBatchHandler:
    def __init__(self, gpu_caches, num_cpu_blocks):
        self.gpu_caches = list(gpu_caches)
        self.cpu_caches = [
            torch.empty((num_cpu_blocks,) + tuple(c.shape[1:]), dtype=c.dtype, pin_memory=True)
            for c in self.gpu_caches
        ]
        device = self.gpu_caches[0].device
        self.store_stream = torch.cuda.Stream(device=device)
        self.load_stream = torch.cuda.Stream(device=device)
        self.copier = BatchCopier(device.index or 0)
        self.dma = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="kv-dma", initializer=torch.cuda.set_device, initargs=(device,)
        )
        self.pending = {}

    def store_async(self, job_id, gpu_blocks, cpu_blocks):
        ready = torch.cuda.Event()
        ready.record()
        self.pending[job_id] = self.dma.submit(
            self._run, "store", self.gpu_caches, self.cpu_caches, gpu_blocks, cpu_blocks, self.store_stream, ready
        )

    def load_async(self, job_id, cpu_blocks, gpu_blocks):
        ready = torch.cuda.Event()
        ready.record()
        self.pending[job_id] = self.dma.submit(
            self._run, "load", self.cpu_caches, self.gpu_caches, cpu_blocks, gpu_blocks, self.load_stream, ready
        )

    def _run(self, direction, src_tensors, dst_tensors, src_blocks, dst_blocks, stream, ready):
        stream.wait_event(ready)
        srcs, dsts, sizes = block_addresses(src_tensors, dst_tensors, src_blocks, dst_blocks)
        self.copier.copy(direction, dsts, srcs, sizes, stream.cuda_stream)
        done = torch.cuda.Event()
        done.record(stream)
        return done

    def get_finished(self):
        finished = []
        for job_id, future in list(self.pending.items()):
            if future.done() and future.result().query():
                finished.append(job_id)
                del self.pending[job_id]
        return finished
