"""Per-layer load events in the shape of SGLang HiCache's LayerDoneCounter: a load records a
start event, then one finish event per layer on the load stream; the attention layer makes
the compute stream wait on its layer's event before reading the loaded KV."""

import torch


class LayerLoadingEvent:
    def __init__(self, num_layers):
        self.start_event = torch.cuda.Event()
        self.load_events = [torch.cuda.Event() for _ in range(num_layers)]

    def complete(self, layer_index):
        self.load_events[layer_index].record()

    def wait(self, layer_index):
        torch.cuda.current_stream().wait_event(self.load_events[layer_index])


class LayerDoneCounter:
    def __init__(self, num_layers, num_counters=3):
        self.num_layers = num_layers
        self.events = [LayerLoadingEvent(num_layers) for _ in range(num_counters)]
        self.producer_index = -1
        self.consumer_index = -1

    def next_producer(self):
        self.producer_index = (self.producer_index + 1) % len(self.events)
        return self.events[self.producer_index]

    def set_consumer(self, index):
        self.consumer_index = index

    def wait_until(self, layer_index):
        if self.consumer_index >= 0:
            self.events[self.consumer_index].wait(layer_index)
