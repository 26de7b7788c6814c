import threading

import torch


class LayerDoneCounter:
    def __init__(self, num_layers: int):
        self.num_layers = num_layers
        self.events = [torch.cuda.Event() for _ in range(num_layers)]
        self.cond = threading.Condition()
        self.counter = num_layers

    def reset(self) -> None:
        with self.cond:
            self.counter = 0

    def complete(self, layer_id: int, stream: torch.cuda.Stream) -> None:
        self.events[layer_id].record(stream)
        with self.cond:
            self.counter = layer_id + 1
            self.cond.notify_all()

    def wait_until(self, layer_id: int) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self.counter > layer_id)
        torch.cuda.current_stream().wait_event(self.events[layer_id])
