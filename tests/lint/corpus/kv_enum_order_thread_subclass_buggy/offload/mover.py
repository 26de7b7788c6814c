"""A copy thread per direction; the requesting thread hands it jobs with a compute event."""

import queue
import threading

import torch

from offload.bindings import MemcpyAttributes, SrcAccessOrder, batch_copy


class BlockMover(threading.Thread):
    def __init__(self, src, dst, order):
        super().__init__(daemon=True)
        self.src = src
        self.dst = dst
        self.stream = torch.cuda.Stream()
        self.attrs = MemcpyAttributes(srcAccessOrder=order, flags=0)
        self.jobs = queue.SimpleQueue()
        self.done = queue.SimpleQueue()

    def submit(self, blocks, ready):
        self.jobs.put((blocks, ready))

    def run(self):
        nbytes = self.src[0].numel() * self.src.element_size()
        while True:
            blocks, ready = self.jobs.get()
            self.stream.wait_event(ready)
            srcs = [self.src.data_ptr() + b * nbytes for b in blocks]
            dsts = [self.dst.data_ptr() + b * nbytes for b in blocks]
            batch_copy(dsts, srcs, [nbytes] * len(blocks), self.attrs, self.stream.cuda_stream)
            finished = torch.cuda.Event()
            finished.record(self.stream)
            finished.synchronize()
            self.done.put(blocks)


class HostCache:
    def __init__(self, gpu_kv, num_blocks):
        shape = (num_blocks, *gpu_kv.shape[1:])
        self.cpu_kv = torch.empty(shape, dtype=gpu_kv.dtype, pin_memory=True)
        self.gpu_kv = gpu_kv
        self.saver = BlockMover(gpu_kv, self.cpu_kv, SrcAccessOrder.ANY)
        self.loader = BlockMover(self.cpu_kv, gpu_kv, SrcAccessOrder.ANY)
        self.saver.start()
        self.loader.start()

    def save(self, blocks):
        ready = torch.cuda.Event()
        ready.record()
        self.saver.submit(blocks, ready)

    def load(self, blocks):
        ready = torch.cuda.Event()
        ready.record()
        self.loader.submit(blocks, ready)


def make_cache(num_layers_blocks, block_elems, num_host_blocks):
    gpu_kv = torch.zeros((num_layers_blocks, block_elems), dtype=torch.float16, device="cuda")
    return HostCache(gpu_kv, num_host_blocks)
