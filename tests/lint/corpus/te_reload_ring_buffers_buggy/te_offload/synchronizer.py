"""Offload/reload scheduling for a stack of layers."""

import torch

from .groups import TensorGroup, group_numel, is_offloadable


class OffloadSynchronizer:
    def __init__(self, num_layers, reload_numel, dtype=torch.bfloat16, min_numel=2**16):
        self.num_layers = num_layers
        self.min_numel = min_numel
        self.offload_stream = torch.cuda.Stream()
        # static reload targets (CUDA-graph friendly): layer i reloads into ring[i % 2]
        self.reload_ring = [torch.empty(reload_numel, dtype=dtype, device="cuda") for _ in range(2)]
        self.fwd_groups = {}
        self.cpu_groups = {}
        self.bwd_groups = {}
        self.finish_offload_events = {}
        self.finish_reload_events = {}
        self.current_fwd_layer = -1

    # forward ---------------------------------------------------------------------------------
    def fwd_step(self):
        if self.current_fwd_layer == self.num_layers - 1:
            # a new iteration; the last layer of the previous one was never offloaded
            self.current_fwd_layer = -1
        if self.current_fwd_layer >= 0:
            layer = self.current_fwd_layer
            self.cpu_groups[layer] = self._offload_group(self.fwd_groups.pop(layer))
            self.finish_offload_events[layer] = self.offload_stream.record_event()
        self.current_fwd_layer += 1
        self.fwd_groups[self.current_fwd_layer] = TensorGroup()
        return self.current_fwd_layer

    def push_tensor(self, tensor):
        if not is_offloadable(tensor, self.min_numel):
            return tensor
        group = self.fwd_groups[self.current_fwd_layer]
        group.tensor_list.append(tensor)
        group.events.append(torch.cuda.current_stream().record_event())
        return (self.current_fwd_layer, len(group.tensor_list) - 1)

    def pop_tensor(self, saved):
        if isinstance(saved, torch.Tensor):
            return saved
        layer, idx = saved
        group = self.bwd_groups.get(layer) or self.fwd_groups[layer]
        return group.tensor_list[idx]

    def _offload_group(self, group):
        out = TensorGroup(aux=[(t.shape, t.dtype) for t in group.tensor_list])
        for tensor, ready in zip(group.tensor_list, group.events):
            self.offload_stream.wait_event(ready)
            with torch.cuda.stream(self.offload_stream):
                host = torch.empty(tensor.numel(), dtype=tensor.dtype, device="cpu", pin_memory=True)
                host.copy_(tensor.reshape(-1), non_blocking=True)
            tensor.record_stream(self.offload_stream)
            out.tensor_list.append(host)
        return out

    # backward --------------------------------------------------------------------------------
    def bwd_step(self, layer):
        if layer > 0 and layer - 1 in self.cpu_groups:
            self._start_reload(layer - 1)
        if layer in self.finish_reload_events:
            torch.cuda.current_stream().wait_event(self.finish_reload_events.pop(layer))

    def _start_reload(self, layer):
        # the host copy must be complete before it is read back
        self.offload_stream.wait_event(self.finish_offload_events.pop(layer))
        self.bwd_groups[layer] = self._reload_group(self.cpu_groups.pop(layer), self.reload_ring[layer % 2])
        self.finish_reload_events[layer] = self.offload_stream.record_event()

    def _reload_group(self, cpu_group, ring_buffer):
        assert group_numel(cpu_group) <= ring_buffer.numel()
        restored = TensorGroup()
        offset = 0
        with torch.cuda.stream(self.offload_stream):
            for host, (shape, dtype) in zip(cpu_group.tensor_list, cpu_group.aux):
                target = ring_buffer[offset:offset + host.numel()]
                # expect: KVG004
                target.copy_(host, non_blocking=True)
                restored.tensor_list.append(target.view(shape))
                offset += host.numel()
        return restored
