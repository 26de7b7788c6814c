from typing import List


class LayerLoadingEvent:
    def __init__(self, device_module, num_layers: int):
        self.device_module = device_module
        self._num_layers = num_layers
        self.load_events = [device_module.Event() for _ in range(num_layers)]
        self.start_event = device_module.Event()

    def complete(self, layer_index: int):
        assert 0 <= layer_index < self._num_layers
        self.load_events[layer_index].record()

    def wait(self, layer_index: int):
        self.device_module.current_stream().wait_event(self.load_events[layer_index])

    @property
    def finish_event(self):
        return self.load_events[-1]


class LayerDoneCounter:
    def __init__(self, device_module, num_layers: int, num_slots: int = 3):
        self.num_layers = num_layers
        self.events: List[LayerLoadingEvent] = [
            LayerLoadingEvent(device_module, num_layers) for _ in range(num_slots)
        ]
        self.producer_index = -1
        self.consumer_index = -1

    def update_producer(self) -> int:
        self.producer_index = (self.producer_index + 1) % len(self.events)
        return self.producer_index

    def set_consumer(self, index: int):
        self.consumer_index = index

    def wait_until(self, threshold: int):
        if self.consumer_index < 0:
            return
        self.events[self.consumer_index].wait(threshold)
