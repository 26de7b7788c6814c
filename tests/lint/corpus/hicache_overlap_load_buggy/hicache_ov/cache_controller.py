"""The part of HiCacheController that moves KV from the host pool back to the device:
merged load operations, issued layer by layer on the load stream, with one event per layer
that the attention of that layer waits on."""

from typing import List, Optional

import torch


class LayerLoadingEvent:
    def __init__(self, num_layers: int):
        self.start_event = torch.cuda.Event()
        self.load_events = [torch.cuda.Event() for _ in range(num_layers)]

    def complete(self, layer_index: int) -> None:
        self.load_events[layer_index].record()

    def wait(self, layer_index: int) -> None:
        torch.cuda.current_stream().wait_event(self.load_events[layer_index])


class LayerDoneCounter:
    def __init__(self, num_layers: int, num_counters: int = 3):
        self.events = [LayerLoadingEvent(num_layers) for _ in range(num_counters)]
        self.producer_index = -1
        self.consumer_index = -1

    def update_producer(self) -> int:
        self.producer_index = (self.producer_index + 1) % len(self.events)
        return self.producer_index

    def set_consumer(self, index: int) -> None:
        self.consumer_index = index

    def wait_until(self, layer_index: int) -> None:
        if self.consumer_index >= 0:
            self.events[self.consumer_index].wait(layer_index)


class HiCacheController:
    def __init__(self, token_to_kv_pool_allocator, mem_pool_host,
                 compute_stream: Optional[torch.cuda.Stream] = None):
        self.mem_pool_device_allocator = token_to_kv_pool_allocator
        self.mem_pool_device = token_to_kv_pool_allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.layer_num = self.mem_pool_device.layer_num
        self.layer_done_counter = LayerDoneCounter(self.layer_num)
        self.mem_pool_device.register_layer_transfer_counter(self.layer_done_counter)
        self.load_queue: List[tuple] = []
        self.load_stream = torch.cuda.Stream()
        self._compute_stream = compute_stream

    @property
    def producer_stream(self) -> torch.cuda.Stream:
        """The stream whose kernels use the device pool; a load must not overtake them."""
        if self._compute_stream is not None:
            return self._compute_stream
        return torch.cuda.current_stream()

    def load(self, host_pages: List[int]) -> Optional[List[int]]:
        device_pages = self.mem_pool_device_allocator.alloc(len(host_pages))
        if device_pages is None:
            return None
        self.load_queue.append((host_pages, device_pages))
        return device_pages

    def start_loading(self) -> int:
        if not self.load_queue:
            return -1
        host_pages = [p for h, _ in self.load_queue for p in h]
        device_pages = [p for _, d in self.load_queue for p in d]
        self.load_queue.clear()
        producer_id = self.layer_done_counter.update_producer()
        producer_event = self.layer_done_counter.events[producer_id]
        producer_event.start_event.record(self.producer_stream)
        with torch.cuda.stream(self.load_stream):
            producer_event.start_event.wait(self.load_stream)
            for i in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(self.mem_pool_device, host_pages,
                                                            device_pages, i)
                producer_event.complete(i)
        return producer_id
