"""A transfer handler in the shape of vLLM's CPU offloading worker handlers: a daemon thread
takes jobs off a queue and moves KV blocks with the ``swap_blocks`` custom op, which runs on
the current stream at its call site, here the handler's side stream. Each job carries the
event its stream waits on before the copy; completion is an event recorded after it."""

import queue
import threading

import torch
from vllm import _custom_ops as ops


class SwapBlocksHandler:
    def __init__(self, src_caches, dst_caches, device):
        self.src_caches = src_caches
        self.dst_caches = dst_caches
        self.device = device
        self.stream = torch.cuda.Stream(device=device)
        self.jobs = queue.Queue()
        self.done_events = {}
        self.thread = threading.Thread(target=self._transfer_loop, daemon=True)
        self.thread.start()

    def transfer_async(self, job_id, block_pairs, ready):
        self.jobs.put((job_id, block_pairs, ready))

    def _transfer_loop(self):
        torch.cuda.set_device(self.device)
        while True:
            job_id, block_pairs, ready = self.jobs.get()
            mapping = torch.tensor(block_pairs, dtype=torch.int64, device="cpu").view(-1, 2)
            self.stream.wait_event(ready)
            with torch.cuda.stream(self.stream):
                for src_cache, dst_cache in zip(self.src_caches, self.dst_caches):
                    ops.swap_blocks(src_cache, dst_cache, mapping)
            done = torch.cuda.Event()
            done.record(self.stream)
            self.done_events[job_id] = done
