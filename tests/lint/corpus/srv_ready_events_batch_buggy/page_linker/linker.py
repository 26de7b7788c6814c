import queue
import threading

import torch

from .base import LinkerBase, device_module


class PageLinker(LinkerBase):
    def __init__(self, num_pages, page_shape, forward_stream=None):
        self.kv_pages = torch.zeros((num_pages, *page_shape), device="cuda")
        self.forward_stream = forward_stream
        self.snapshot_stream = None
        self.staging = []
        self.tasks = queue.Queue()
        self.results = queue.Queue()
        self.worker = threading.Thread(target=self._worker_loop, daemon=True)
        self.worker.start()

    def forward(self, first, values):
        self.kv_pages[first : first + values.shape[0]] = values * 2

    def offload(self, first, count):
        ready = self.record_ready()
        self.tasks.put(((first, count), ready))

    def close(self):
        self.tasks.put(None)

    def _take_batch(self):
        head = self.tasks.get()
        if head is None:
            return [], True
        batch = [head]
        while len(batch) < 8:
            try:
                task = self.tasks.get_nowait()
            except queue.Empty:
                break
            if task is None:
                return batch, True
            batch.append(task)
        return batch, False

    def _worker_loop(self):
        while True:
            batch, stopping = self._take_batch()
            if batch:
                self.results.put(self._store(batch))
            if stopping:
                return

    def _store(self, batch):
        # The ready events travel with each task but nothing waits on them.
        return [self._snapshot(span, slot) for slot, (span, _) in enumerate(batch)]

    def _snapshot(self, span, slot):
        first, count = span
        if self.snapshot_stream is None:
            self.snapshot_stream = device_module.Stream()
        while len(self.staging) <= slot:
            self.staging.append(None)
        buffer = self.staging[slot]
        if buffer is None or buffer.shape[0] < count:
            buffer = torch.empty(
                (count, *self.kv_pages.shape[1:]), dtype=self.kv_pages.dtype, pin_memory=True
            )
            self.staging[slot] = buffer
        with device_module.stream(self.snapshot_stream):
            # expect: KVG001
            buffer[:count].copy_(self.kv_pages[first : first + count], non_blocking=True)
        self.snapshot_stream.synchronize()
        return buffer[:count]
