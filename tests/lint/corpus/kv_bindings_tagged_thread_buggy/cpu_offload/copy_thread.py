"""One daemon copy thread serving stores and loads, told apart by a "store" / "load" tag in
each queued payload; the payload also carries the event the side stream waits on before the
copy. Bug: the store attributes ask for CU_MEMCPY_SRC_ACCESS_ORDER_ANY, so even a correct
barrier would not gate the reads of the live GPU KV cache."""

import queue
import threading

import torch
from cuda.bindings import driver as drv

from cpu_offload.mem_ops import batch_copy, make_attrs


class CopyThread:
    def __init__(self, gpu_caches, cpu_caches, device):
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)
        self.load_stream = torch.cuda.Stream(device=device)
        self.store_attrs = make_attrs(
            drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
        )
        self.load_attrs = make_attrs(
            drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
        )
        self.jobs = queue.SimpleQueue()
        self.finished = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def submit(self, tag, job_id, src_blocks, dst_blocks, ready):
        self.jobs.put((tag, job_id, src_blocks, dst_blocks, ready))

    def _run(self):
        torch.cuda.set_device(self.device)
        while True:
            item = self.jobs.get()
            if item is None:
                return
            tag, job_id, src_blocks, dst_blocks, ready = item
            if tag == "store":
                stream = self.store_stream
                stream.wait_event(ready)
                batch_copy(
                    self.gpu_caches, src_blocks, self.cpu_caches, dst_blocks, self.store_attrs, stream
                )
            else:
                stream = self.load_stream
                stream.wait_event(ready)
                batch_copy(
                    self.cpu_caches, src_blocks, self.gpu_caches, dst_blocks, self.load_attrs, stream
                )
            done = torch.cuda.Event()
            done.record(stream)
            self.finished.append((job_id, done))
