"""The DMA copy backend: per-direction params whose source order comes from the constants
module, and a daemon thread that waits on the event carried in each job (when there is one)
before running the batch copy on that direction's stream."""

import queue
import threading

import torch

from kvoff import constants
from kvoff.cuda_mem_ops import build_params, copy_blocks


class DmaCopyBackend:
    def __init__(self, gpu_caches, cpu_caches, device, load_stream, store_stream):
        self.store_params = build_params(
            gpu_caches, cpu_caches, store_stream, src_access_order=constants.STORE_SRC_ACCESS_ORDER
        )
        self.load_params = build_params(
            cpu_caches, gpu_caches, load_stream, src_access_order=constants.LOAD_SRC_ACCESS_ORDER
        )
        self.jobs = queue.SimpleQueue()
        self.thread = threading.Thread(
            target=self._copy_loop, args=(self.jobs, device, load_stream, store_stream), daemon=True
        )
        self.thread.start()

    def launch_copy(self, src_blocks, dst_blocks, is_store, event_idx, events, wait_event=None):
        params = self.store_params if is_store else self.load_params
        self.jobs.put((src_blocks, dst_blocks, params, is_store, event_idx, events, wait_event))

    @staticmethod
    def _copy_loop(jobs, device, load_stream, store_stream):
        torch.cuda.set_device(device)
        while True:
            item = jobs.get()
            if item is None:
                return
            src_blocks, dst_blocks, params, is_store, event_idx, events, wait_event = item
            stream = store_stream if is_store else load_stream
            if wait_event is not None:
                stream.wait_event(wait_event)
            copy_blocks(src_blocks, dst_blocks, params)
            done = torch.Event()
            done.record(stream)
            events.append((event_idx, done))
