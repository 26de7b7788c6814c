"""A cache controller in the shape of SGLang's HiCacheController: the scheduler thread puts
backup operations on a write queue, a write thread copies the pages to the host pool on its
own write stream and acknowledges each operation once its done-event has completed.
Bug: nothing orders the write stream behind the forward stream. The only event the write
thread touches is recorded after the copy, so it marks completion and is no barrier; the
copy can read pages the forward pass is still writing."""

import queue
import threading

import torch


class CacheOperation:
    def __init__(self, host_pages, device_pages, node_id):
        self.host_pages = host_pages
        self.device_pages = device_pages
        self.node_id = node_id
        self.done_event = torch.cuda.Event()


class HiCacheController:
    def __init__(self, device_pool, host_pool):
        self.device_pool = device_pool
        self.host_pool = host_pool
        self.write_stream = torch.cuda.Stream()
        self.write_queue = queue.Queue()
        self.ack_write_queue = queue.Queue()
        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(target=self.write_thread_func, daemon=True)
        self.write_thread.start()

    def write(self, device_pages, node_id):
        host_pages = self.host_pool.alloc(len(device_pages))
        self.write_queue.put(CacheOperation(host_pages, device_pages, node_id))
        return host_pages

    def write_thread_func(self):
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(timeout=1)
            except queue.Empty:
                continue
            with torch.cuda.stream(self.write_stream):
                self.host_pool.backup_from_device_all_layer(
                    self.device_pool, op.host_pages, op.device_pages
                )
                op.done_event.record()
            # waiting on the write stream's own event after the copy orders nothing
            self.write_stream.wait_event(op.done_event)
            op.done_event.synchronize()
            self.ack_write_queue.put(op.node_id)
