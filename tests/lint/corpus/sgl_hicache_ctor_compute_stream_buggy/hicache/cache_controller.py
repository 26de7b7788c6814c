"""Load-back part of a HiCache controller, run on the scheduler thread: the step's loads are
merged and issued layer by layer on the load stream, and each layer's attention waits for
its own layer's event."""

from typing import List, Optional, Tuple

import torch


class HiCacheController:
    def __init__(self, device_pool, allocator, host_pool,
                 compute_stream: Optional[torch.cuda.Stream] = None):
        self.device_pool = device_pool
        self.allocator = allocator
        self.host_pool = host_pool
        # the stream the model runs on; loads must not overwrite pages it may still read
        self.compute_stream = compute_stream or torch.cuda.current_stream()
        self.load_stream = torch.cuda.Stream()
        self.layer_events = [torch.cuda.Event() for _ in range(device_pool.layer_num)]
        self.pending: List[Tuple[List[int], List[int]]] = []

    def load(self, host_pages: List[int]) -> Optional[List[int]]:
        device_pages = self.allocator.alloc(len(host_pages))
        if device_pages is None:
            return None
        self.pending.append((host_pages, device_pages))
        return device_pages

    def start_loading(self) -> bool:
        if not self.pending:
            return False
        host_pages = [p for h, _ in self.pending for p in h]
        device_pages = [p for _, d in self.pending for p in d]
        self.pending = []
        self.load_stream.wait_stream(self.compute_stream)
        with torch.cuda.stream(self.load_stream):
            for layer_id in range(self.device_pool.layer_num):
                self.host_pool.load_to_device_per_layer(
                    self.device_pool, host_pages, device_pages, layer_id)
                self.layer_events[layer_id].record()
        return True

    def wait_layer(self, layer_id: int) -> None:
        torch.cuda.current_stream().wait_event(self.layer_events[layer_id])
