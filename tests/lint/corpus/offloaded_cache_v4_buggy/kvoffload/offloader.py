import logging
from typing import List

import torch

from .configuration import OffloadConfig
from .copy_utils import to_device, to_host

logger = logging.getLogger(__name__)


class LayerOffloader:
    """Moves per-layer KV tensors between the accelerator and host memory.

    Two side streams are used: the offload stream carries device-to-host
    evictions, the prefetch stream carries host-to-device fetches. The default
    stream keeps all forward() computations.
    """

    def __init__(self, config: OffloadConfig, device: torch.device):
        self.config = config
        self.device = device
        self.offload_stream = torch.cuda.Stream(device=device)
        self.prefetch_stream = torch.cuda.Stream(device=device)
        logger.info("offloading KV cache layers to %s", config.offload_device)

    def evict(self, layer) -> None:
        if layer.keys is None:
            return
        if layer.ready_event is not None:
            self.offload_stream.wait_event(layer.ready_event)
        with torch.cuda.stream(self.offload_stream):
            layer.host_keys = to_host(layer.keys, self.config.pin_memory)
            layer.host_values = to_host(layer.values, self.config.pin_memory)
            layer.offload_event = torch.cuda.Event()
            layer.offload_event.record(self.offload_stream)
        layer.keys.record_stream(self.offload_stream)
        layer.values.record_stream(self.offload_stream)
        layer.keys = None
        layer.values = None
        layer.ready_event = None

    def prefetch(self, layers: List, layer_idx: int) -> None:
        if layer_idx >= len(layers):
            return
        layer = layers[layer_idx]
        if layer.keys is not None or layer.host_keys is None:
            return
        self.prefetch_stream.wait_event(layer.offload_event)
        with torch.cuda.stream(self.prefetch_stream):
            layer.keys = to_device(layer.host_keys, self.device)
            layer.values = to_device(layer.host_values, self.device)
            layer.fetch_event = torch.cuda.Event()
            layer.fetch_event.record(self.prefetch_stream)

    def wait_for_layer(self, layer) -> None:
        if layer.fetch_event is not None:
            compute_stream = torch.cuda.current_stream(self.device)
            compute_stream.wait_event(layer.fetch_event)
            layer.keys.record_stream(compute_stream)
            layer.values.record_stream(compute_stream)
            layer.fetch_event = None
