"""Offload the inputs that linear layers keep for their weight gradient: forward sends them to
pinned host memory on a D2H stream, backward brings the next one (in backward order) back on an
H2D stream while the current layer's gradient GEMMs run."""

import torch

from .global_vars import get_global_memory_buffer


class LinearInputOffloader:
    def __init__(self, num_layers: int):
        self.num_layers = num_layers
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.host_inputs: dict[int, torch.Tensor] = {}
        self.offload_done = {i: torch.cuda.Event() for i in range(num_layers)}
        self.reload_done = {i: torch.cuda.Event() for i in range(num_layers)}
        self.reloaded: dict[int, torch.Tensor] = {}

    def offload(self, layer_id: int, tensor: torch.Tensor):
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h_stream):
            host = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=True)
            host.copy_(tensor, non_blocking=True)
            self.offload_done[layer_id].record()
        tensor.record_stream(self.d2h_stream)
        self.host_inputs[layer_id] = host

    def prefetch(self, layer_id: int):
        if layer_id < 0 or layer_id in self.reloaded or layer_id not in self.host_inputs:
            return
        host = self.host_inputs.pop(layer_id)
        # the host copy has to have landed before it is read back
        self.h2d_stream.wait_event(self.offload_done[layer_id])
        with torch.cuda.stream(self.h2d_stream):
            # two named scratch buffers are enough: one for the layer in backward, one for the
            # layer being prefetched
            buf = get_global_memory_buffer().get_tensor(host.shape, host.dtype, f"input_reload_{layer_id % 2}")
            # expect: KVG004
            buf.copy_(host, non_blocking=True)
            self.reload_done[layer_id].record()
        self.reloaded[layer_id] = buf

    def get(self, layer_id: int) -> torch.Tensor:
        self.prefetch(layer_id)
        torch.cuda.current_stream().wait_event(self.reload_done[layer_id])
        return self.reloaded.pop(layer_id)
