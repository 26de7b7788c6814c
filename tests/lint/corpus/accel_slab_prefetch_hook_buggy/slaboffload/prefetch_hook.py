"""Sequential CPU offload where layer i's hook also starts copying layer i+1's weights from
pinned host memory into the other slab, so the copy overlaps layer i's compute."""

import torch

from .hooks import ModelHook, add_hook_to_module
from .slab import WeightSlabs, transfer_stream_for


class SlabPrefetchHook(ModelHook):
    def __init__(self, layer_idx, host_weights, slabs: WeightSlabs, execution_device, next_hook=None):
        self.layer_idx = layer_idx
        # name -> pinned host tensor
        self.host_weights = host_weights
        self.slabs = slabs
        self.execution_device = execution_device
        self.next_hook = next_hook

    @property
    def transfer_stream(self):
        return transfer_stream_for(self.execution_device)

    def start_load(self):
        slot = self.slabs.slot(self.layer_idx)
        slab = self.slabs.slabs[slot]
        offset = 0
        with torch.cuda.stream(self.transfer_stream):
            for host in self.host_weights.values():
                n = host.numel()
                # expect: KVG004
                slab[offset:offset + n].copy_(host.view(-1), non_blocking=True)
                offset += n
        self.slabs.ready[slot].record(self.transfer_stream)

    def _bind(self, module):
        slab = self.slabs.slabs[self.slabs.slot(self.layer_idx)]
        offset = 0
        for name, host in self.host_weights.items():
            n = host.numel()
            getattr(module, name).data = slab[offset:offset + n].view_as(host)
            offset += n

    def pre_forward(self, module, *args, **kwargs):
        torch.cuda.current_stream().wait_event(self.slabs.ready[self.slabs.slot(self.layer_idx)])
        self._bind(module)
        if self.next_hook is not None:
            self.next_hook.start_load()
        return args, kwargs


class SlabOffloadedModel(torch.nn.Module):
    def __init__(self, layers, slab_numel, dtype=torch.float16, device="cuda:0"):
        super().__init__()
        self.layers = torch.nn.ModuleList(layers)
        self.slabs = WeightSlabs(slab_numel, dtype, device)
        self.hooks = []
        for i, layer in enumerate(self.layers):
            host = {name: p.detach().cpu().pin_memory() for name, p in layer.named_parameters(recurse=False)}
            self.hooks.append(SlabPrefetchHook(i, host, self.slabs, device))
        for hook, nxt in zip(self.hooks, self.hooks[1:]):
            hook.next_hook = nxt
        for layer, hook in zip(self.layers, self.hooks):
            add_hook_to_module(layer, hook)

    def forward(self, hidden):
        # the first layer's weights are loaded afresh every forward
        self.hooks[0].start_load()
        for layer in self.layers:
            hidden = layer(hidden)
        return hidden
