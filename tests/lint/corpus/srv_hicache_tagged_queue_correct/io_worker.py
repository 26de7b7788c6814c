"""A HiCache-style IO worker: one queue carries both backups (device pages to the pinned host
pool) and loads (host pages back to device pages); the worker thread branches on the tag the
scheduler put in each task and runs the copy on its own IO stream.
The scheduler records a ready-event on its current stream for every task, backups and loads
alike, and the worker makes the IO stream wait on it before either branch copies."""

import queue
import threading

import torch

BACKUP = "backup"
LOAD = "load"


class HiCacheIOWorker:
    def __init__(self, num_device_pages, num_host_pages, page_numel, dtype=torch.bfloat16):
        self.device_kv = torch.zeros((num_device_pages, page_numel), dtype=dtype, device="cuda")
        self.host_kv = torch.empty((num_host_pages, page_numel), dtype=dtype, pin_memory=True)
        self.io_stream = torch.cuda.Stream()
        self.tasks = queue.Queue()
        self.acks = queue.Queue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def submit_backup(self, op_id, host_pages, device_pages):
        ready = torch.cuda.current_stream().record_event()
        self.tasks.put((BACKUP, op_id, host_pages, device_pages, ready))

    def submit_load(self, op_id, host_pages, device_pages):
        ready = torch.cuda.Event()
        ready.record()
        self.tasks.put((LOAD, op_id, host_pages, device_pages, ready))

    def _run(self):
        while True:
            tag, op_id, host_pages, device_pages, ready = self.tasks.get()
            self.io_stream.wait_event(ready)
            with torch.cuda.stream(self.io_stream):
                if tag == BACKUP:
                    for h, d in zip(host_pages, device_pages):
                        self.host_kv[h].copy_(self.device_kv[d], non_blocking=True)
                elif tag == LOAD:
                    for h, d in zip(host_pages, device_pages):
                        self.device_kv[d].copy_(self.host_kv[h], non_blocking=True)
                done = torch.cuda.Event()
                done.record()
            self.acks.put((tag, op_id, done))

    def poll(self):
        finished = []
        while not self.acks.empty():
            tag, op_id, done = self.acks.get()
            done.synchronize()
            finished.append((tag, op_id))
        return finished
