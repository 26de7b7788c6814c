"""HiCache-style write-back: the scheduler hands device->host writes to a daemon thread."""

import queue
import threading
from dataclasses import dataclass

import torch


@dataclass
class CacheOperation:
    host_indices: list
    device_indices: list
    node_id: int
    ready_event: torch.cuda.Event


class HiCacheController:
    def __init__(self, device_pool, host_pool, storage):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.storage = storage
        self.write_stream = torch.cuda.Stream()
        self.write_queue = queue.Queue()
        self.ack_write_queue = queue.Queue()
        self.write_thread = threading.Thread(target=self.write_thread_func, daemon=True)
        self.write_thread.start()

    def write(self, device_indices, node_id):
        host_indices = self.host_pool.alloc(len(device_indices))
        if host_indices is None:
            return None
        ready_event = torch.cuda.Event()
        ready_event.record()
        self.write_queue.put(CacheOperation(host_indices, device_indices, node_id, ready_event))
        return host_indices

    def write_thread_func(self):
        while True:
            op = self.write_queue.get()
            if op is None:
                break
            op.ready_event.wait(self.write_stream)
            with torch.cuda.stream(self.write_stream):
                for h, d in zip(op.host_indices, op.device_indices):
                    self.host_pool.kv[h].copy_(self.device_pool.kv[d], non_blocking=True)
                finish_event = torch.cuda.Event()
                finish_event.record()
            finish_event.synchronize()
            for h in op.host_indices:
                self.storage.put(h, self.host_pool.kv[h].view(torch.uint8).numpy().tobytes())
            self.ack_write_queue.put(op.node_id)
