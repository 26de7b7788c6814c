"""Per-layer completion events for layer-wise load-back.

The load stream records ``load_events[i]`` once layer ``i`` is resident; the
forward waits on it just before the attention of that layer reads the pool.
"""

from typing import List

import torch

from .config import NUM_LAYER_COUNTERS


class LayerLoadingEvent:
    def __init__(self, num_layers: int):
        self.num_layers = num_layers
        self.start_event = torch.cuda.Event()
        self.load_events: List[torch.cuda.Event] = [torch.cuda.Event() for _ in range(num_layers)]

    def begin(self, load_stream: torch.cuda.Stream) -> None:
        """Hold ``load_stream`` back until the caller's stream reaches this point."""
        self.start_event.record()
        load_stream.wait_event(self.start_event)

    def complete(self, layer_index: int) -> None:
        self.load_events[layer_index].record()

    def wait(self, layer_index: int) -> None:
        torch.cuda.current_stream().wait_event(self.load_events[layer_index])

    @property
    def finish_event(self) -> torch.cuda.Event:
        return self.load_events[-1]


class LayerDoneCounter:
    def __init__(self, num_layers: int):
        self.events = [LayerLoadingEvent(num_layers) for _ in range(NUM_LAYER_COUNTERS)]
        self.producer_index = -1
        self.consumer_index = -1

    def update_producer(self) -> int:
        self.producer_index = (self.producer_index + 1) % len(self.events)
        assert self.events[self.producer_index].finish_event.query(), "counter reused too early"
        return self.producer_index

    def set_consumer(self, index: int) -> None:
        self.consumer_index = index

    def wait_until(self, layer_index: int) -> None:
        if self.consumer_index >= 0:
            self.events[self.consumer_index].wait(layer_index)
