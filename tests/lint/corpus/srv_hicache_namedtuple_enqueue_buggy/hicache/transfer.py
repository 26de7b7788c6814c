"""Host <-> device KV movement for a hierarchical cache. The scheduler thread enqueues
operations; one worker thread per direction drains its queue. Each operation carries the
event that marks the point in the scheduler's stream after which the transfer may run."""

import queue
import threading
import time
from typing import NamedTuple, Optional

import torch


class TransferOp(NamedTuple):
    host_slots: list
    device_slots: list
    after: torch.cuda.Event
    finished: torch.cuda.Event
    storage_key: Optional[str] = None


class HostTransferEngine:
    def __init__(self, device_pool, host_pool, storage):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.storage = storage
        self.load_stream = torch.cuda.Stream()
        self.backup_stream = torch.cuda.Stream()
        self.load_queue = queue.Queue()
        self.backup_queue = queue.Queue()
        self.inflight_loads = []
        threading.Thread(target=self._load_worker, daemon=True).start()
        threading.Thread(target=self._backup_worker, daemon=True).start()

    def _enqueue(self, q, host_slots, device_slots, storage_key=None):
        op = TransferOp(host_slots, device_slots, torch.cuda.Event(), torch.cuda.Event(), storage_key)
        q.put(op)
        op.after.record()
        return op

    def load(self, host_slots, device_slots):
        """Bring host tokens into device slots the radix tree just evicted."""
        op = self._enqueue(self.load_queue, host_slots, device_slots)
        self.inflight_loads.append(op)
        return op

    def backup(self, device_slots, storage_key):
        host_slots = self.host_pool.alloc(len(device_slots))
        if host_slots is None:
            return None
        return self._enqueue(self.backup_queue, host_slots, device_slots, storage_key)

    def loads_landed(self):
        """Polled by the scheduler before it schedules requests that need the loaded tokens."""
        landed = 0
        while self.inflight_loads and self.inflight_loads[0].finished.query():
            self.inflight_loads.pop(0)
            landed += 1
        return landed

    def _load_worker(self):
        torch.cuda.set_device(self.device_pool.kv.device)
        while True:
            op = self.load_queue.get()
            if op is None:
                break
            self.load_stream.wait_event(op.after)
            with torch.cuda.stream(self.load_stream):
                for h, d in zip(op.host_slots, op.device_slots):
                    # expect: KVG004
                    self.device_pool.kv[d].copy_(self.host_pool.kv[h], non_blocking=True)
                op.finished.record()

    def _backup_worker(self):
        torch.cuda.set_device(self.device_pool.kv.device)
        while True:
            op = self.backup_queue.get()
            if op is None:
                break
            self.backup_stream.wait_event(op.after)
            with torch.cuda.stream(self.backup_stream):
                for h, d in zip(op.host_slots, op.device_slots):
                    # expect: KVG001
                    self.host_pool.kv[h].copy_(self.device_pool.kv[d], non_blocking=True)
                op.finished.record()
            while not op.finished.query():
                time.sleep(0.0002)
            payload = b"".join(self.host_pool.kv[h].view(torch.uint8).numpy().tobytes() for h in op.host_slots)
            self.storage.put(op.storage_key, payload)
