from typing import List

import torch


def current_stream() -> torch.Stream:
    return torch.accelerator.current_stream()


def new_stream(device: str) -> torch.cuda.Stream:
    return torch.cuda.Stream(device=device)


class LayerLoadingEvent:
    def __init__(self, num_layers: int):
        self.load_events: List[torch.Event] = [torch.Event() for _ in range(num_layers)]
        self.start_event = torch.Event(enable_timing=True)

    def complete(self, layer_index: int) -> None:
        self.load_events[layer_index].record()

    def wait(self, layer_index: int) -> None:
        current_stream().wait_event(self.load_events[layer_index])

    @property
    def finish_event(self) -> torch.Event:
        return self.load_events[-1]


class LayerDoneCounter:
    def __init__(self, num_layers: int, num_counters: int = 3):
        self.events = [LayerLoadingEvent(num_layers) for _ in range(num_counters)]
        self.producer_index = -1
        self.consumer_index = -1

    def update_producer(self) -> int:
        self.producer_index = (self.producer_index + 1) % len(self.events)
        return self.producer_index

    def wait_until(self, layer_index: int) -> None:
        if self.consumer_index >= 0:
            self.events[self.consumer_index].wait(layer_index)
