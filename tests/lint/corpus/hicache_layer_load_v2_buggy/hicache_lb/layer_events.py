from __future__ import annotations

from typing import List

import torch

from hicache_lb.constants import NUM_LAYER_COUNTERS


class LayerLoadingEvent:
    def __init__(self, num_layers: int):
        self._num_layers = num_layers
        self.load_events = [torch.Event() for _ in range(num_layers)]
        self.start_event = torch.Event()

    def complete(self, layer_index: int) -> None:
        # recorded on the loader thread's current stream
        self.load_events[layer_index].record()

    def wait(self, layer_index: int) -> None:
        torch.accelerator.current_stream().wait_event(self.load_events[layer_index])

    @property
    def finish_event(self) -> torch.Event:
        return self.load_events[-1]


class LayerDoneCounter:
    def __init__(self, num_layers: int):
        self.num_layers = num_layers
        self.events: List[LayerLoadingEvent] = [
            LayerLoadingEvent(num_layers) for _ in range(NUM_LAYER_COUNTERS)
        ]
        self.producer_index = -1
        self.consumer_index = -1

    def update_producer(self) -> int:
        self.producer_index = (self.producer_index + 1) % NUM_LAYER_COUNTERS
        self.events[self.producer_index].finish_event.synchronize()
        return self.producer_index

    def set_consumer(self, index: int) -> None:
        self.consumer_index = index

    def wait_until(self, layer_index: int) -> None:
        if self.consumer_index < 0:
            return
        self.events[self.consumer_index].wait(layer_index)
