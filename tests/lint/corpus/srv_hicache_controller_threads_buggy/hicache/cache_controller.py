"""HiCache controller: write-through of device pages to the host pool on a write thread, loads
back to the device layer by layer, and an optional file backup of written pages (L3)."""

import os
import queue
import threading
from dataclasses import dataclass

import torch


@dataclass
class CacheOperation:
    host_pages: list
    device_pages: list
    node_id: int


class HiCacheController:
    def __init__(self, mem_pool_device, mem_pool_host, storage_dir=None):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.storage_dir = storage_dir
        self.compute_stream = torch.cuda.current_stream()
        self.write_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self.write_queue = queue.Queue()
        self.ack_write_list = []
        self.ack_lock = threading.Lock()
        self.layer_done_events = []
        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(target=self.write_thread_func, daemon=True)
        self.write_thread.start()

    def write(self, host_pages, device_pages, node_id):
        self.write_queue.put(CacheOperation(host_pages, device_pages, node_id))

    def write_thread_func(self):
        torch.cuda.set_stream(self.write_stream)
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(block=True, timeout=1)
            except queue.Empty:
                continue
            self.mem_pool_host.backup_from_device_all_layer(
                self.mem_pool_device, op.host_pages, op.device_pages
            )
            finish = torch.cuda.Event()
            finish.record()
            with self.ack_lock:
                self.ack_write_list.append((finish, op.node_id))
            if self.storage_dir is not None:
                for h in op.host_pages:
                    path = os.path.join(self.storage_dir, f"{op.node_id}_{h}.pt")
                    # expect: KVG003
                    torch.save(self.mem_pool_host.get_page(h), path)

    def load(self, host_pages, device_pages):
        self.layer_done_events = [torch.cuda.Event() for _ in range(self.mem_pool_host.layer_num)]
        with torch.cuda.stream(self.load_stream):
            for layer, done in enumerate(self.layer_done_events):
                self.mem_pool_host.load_to_device_per_layer(
                    self.mem_pool_device, host_pages, device_pages, layer
                )
                done.record()

    def wait_until_layer_loaded(self, layer):
        torch.cuda.current_stream().wait_event(self.layer_done_events[layer])

    def poll_write_acks(self):
        with self.ack_lock:
            done = [node for ev, node in self.ack_write_list if ev.query()]
            self.ack_write_list = [(ev, n) for ev, n in self.ack_write_list if n not in done]
        return done
