"""The DMA backend: two copy plans built once, and a daemon thread that runs whatever plan
each queued job names. Bug: the store plan asks for DURING_API_CALL source order, which lets
the driver read the GPU KV cache before the barrier queued on the store stream takes effect."""

import queue
import threading

import torch

from dma_offload.cuda_ops import make_plan, run_plan


class DmaBackend:
    def __init__(self, gpu_caches, cpu_caches, device, load_stream, store_stream):
        self.store_plan = make_plan(
            gpu_caches,
            cpu_caches,
            store_stream,
            src_order=2,
        )
        self.load_plan = make_plan(cpu_caches, gpu_caches, load_stream, src_order=3)
        self.device = device
        self.jobs = queue.SimpleQueue()
        self.thread = threading.Thread(
            target=self._copy_loop, args=(self.jobs, device, load_stream, store_stream), daemon=True
        )
        self.thread.start()

    def launch_copy(self, src_blocks, dst_blocks, is_store, job_id, events):
        plan = self.store_plan if is_store else self.load_plan
        self.jobs.put((src_blocks, dst_blocks, plan, is_store, job_id, events))

    @staticmethod
    def _copy_loop(jobs, device, load_stream, store_stream):
        torch.cuda.set_device(device)
        while True:
            item = jobs.get()
            if item is None:
                return
            src_blocks, dst_blocks, plan, is_store, job_id, events = item
            run_plan(plan, src_blocks, dst_blocks)
            stream = store_stream if is_store else load_stream
            done = torch.cuda.Event()
            done.record(stream)
            events.append((job_id, done))
