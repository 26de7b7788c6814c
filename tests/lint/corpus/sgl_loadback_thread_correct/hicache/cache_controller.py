"""Load-back half of a HiCache controller: the scheduler asks for host pages to be brought
back, a load thread copies them layer by layer on the load stream, and the forward waits
for each layer through the LayerDoneCounter before its attention reads it."""

import threading
from dataclasses import dataclass, field
from queue import Queue

import torch


class LayerDoneCounter:
    def __init__(self, num_layers):
        self.num_layers = num_layers
        self.events = [torch.cuda.Event() for _ in range(num_layers)]
        self.loaded = num_layers
        self.condition = threading.Condition()

    def reset(self):
        with self.condition:
            self.loaded = 0

    def mark_loaded(self, layer_id):
        self.events[layer_id].record()
        with self.condition:
            self.loaded = layer_id + 1
            self.condition.notify_all()

    def wait_until(self, layer_id):
        with self.condition:
            while self.loaded <= layer_id:
                self.condition.wait()
        torch.cuda.current_stream().wait_event(self.events[layer_id])


@dataclass
class LoadOperation:
    host_pages: list
    device_pages: list
    node_id: int
    done: threading.Event = field(default_factory=threading.Event)
    start_event: torch.cuda.Event = field(default_factory=torch.cuda.Event)


class HiCacheController:
    def __init__(self, device_pool, allocator, host_pool):
        self.device_pool = device_pool
        self.allocator = allocator
        self.host_pool = host_pool
        self.layer_done_counter = LayerDoneCounter(device_pool.layer_num)
        self.load_stream = torch.cuda.Stream()
        self.load_queue: "Queue[LoadOperation]" = Queue()
        self.pending_loads = []
        self.load_thread = threading.Thread(target=self.load_thread_func, daemon=True)
        self.load_thread.start()

    def load(self, host_pages, node_id):
        device_pages = self.allocator.alloc(len(host_pages))
        if device_pages is None:
            return None
        self.pending_loads.append(LoadOperation(host_pages, device_pages, node_id))
        return device_pages

    def start_loading(self):
        """Merge this step's loads into one operation for the load thread."""
        if not self.pending_loads:
            return None
        ops, self.pending_loads = self.pending_loads, []
        merged = LoadOperation(
            [p for op in ops for p in op.host_pages],
            [p for op in ops for p in op.device_pages],
            ops[0].node_id,
        )
        # on the scheduler thread, under the forward stream: the load thread's copies must
        # not start before the kernels already queued there (they may read freed pages)
        merged.start_event.record()
        self.layer_done_counter.reset()
        self.load_queue.put(merged)
        return merged

    def load_thread_func(self):
        while True:
            op = self.load_queue.get()
            self.load_stream.wait_event(op.start_event)
            with torch.cuda.stream(self.load_stream):
                for layer_id in range(self.device_pool.layer_num):
                    self.host_pool.load_to_device_per_layer(
                        self.device_pool, op.host_pages, op.device_pages, layer_id)
                    self.layer_done_counter.mark_loaded(layer_id)
            op.done.set()
