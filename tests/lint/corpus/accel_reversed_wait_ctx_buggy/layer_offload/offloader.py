import torch
from torch import nn

from .config import LayerOffloadConfig
from .streams import side_stream_after_caller


class LayerOffloader:
    """Layers ``i`` and ``i + 2`` share a device slot; the pre-hook of layer ``i`` waits for its own
    weights and starts loading layer ``i + 1`` into the slot layer ``i - 1`` ran from."""

    def __init__(self, layers: nn.ModuleList, config: LayerOffloadConfig):
        self.layers = layers
        self.config = config
        self.device = torch.device(config.execution_device)
        self.host_weights = [
            {name: p.detach().to("cpu").pin_memory() for name, p in layer.named_parameters()} for layer in layers
        ]
        template = self.host_weights[0]
        self.slots = [
            {name: torch.empty(t.shape, dtype=t.dtype, device=self.device) for name, t in template.items()}
            for _ in range(2)
        ]
        for i, layer in enumerate(layers):
            for name, p in layer.named_parameters():
                p.data = self.slots[i % 2][name]
        self.load_stream = torch.cuda.Stream(self.device)
        self.slot_ready = [torch.cuda.Event() for _ in range(2)]
        self.slot_layer = [None, None]

    def _load(self, idx):
        slot = idx % 2
        with side_stream_after_caller(self.load_stream):
            for name, host in self.host_weights[idx].items():
                # expect: KVG004
                self.slots[slot][name].copy_(host, non_blocking=True)
            self.slot_ready[slot].record()
        self.slot_layer[slot] = idx

    def pre_forward(self, idx):
        slot = idx % 2
        if self.slot_layer[slot] != idx:
            self._load(idx)
        torch.cuda.current_stream(self.device).wait_event(self.slot_ready[slot])
        if self.config.prefetch_next_layer and idx + 1 < len(self.layers):
            self._load(idx + 1)

    def make_hook(self, idx):
        def hook(module, args):
            self.pre_forward(idx)

        return hook


def attach_layer_offload(model, config: LayerOffloadConfig):
    offloader = LayerOffloader(model.layers, config)
    for idx, layer in enumerate(model.layers):
        layer.register_forward_pre_hook(offloader.make_hook(idx))
    model._layer_offloader = offloader
    return offloader
