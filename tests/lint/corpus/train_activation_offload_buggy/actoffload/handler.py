"""Per-chunk activation offload handler in the shape of Megatron's ChunkOffloadHandler: saved
activations are grouped per layer, copied to pinned host memory on the d2h stream when the layer's
forward commits, and copied back on the h2d stream into two staging buffers that alternate between
layers in the backward. Bugs: the per-layer event the d2h stream waits on is recorded when the layer
STARTS, before its forward has written the activations; and the reload overwrites a staging
buffer that the backward of the layer two above may still be reading: the h2d stream only waits
for the offload event, which orders it behind the compute stream as of the forward."""

import torch

from actoffload.manager import OffloadManager


class ChunkOffloadHandler:
    def __init__(self, num_layers, staging_numel):
        manager = OffloadManager.get_instance()
        self.d2h_stream = manager.d2h_stream
        self.h2d_stream = manager.h2d_stream
        self.num_layers = num_layers
        self.layer_index = 0
        self.tag_to_state = {}
        self.layer_events = {}
        self.reload_done = {}
        self.offload_done = {}
        # Two staging buffers used in turn by alternate layers in the backward.
        self.staging = [torch.empty(staging_numel, dtype=torch.bfloat16, device="cuda") for _ in range(2)]

    def tensor_push(self, tensor):
        tag = (self.layer_index, len(self.tag_to_state))
        self.tag_to_state[tag] = tensor
        return tag

    def tensor_pop(self, tag):
        layer, _ = tag
        if layer in self.reload_done:
            torch.cuda.current_stream().wait_event(self.reload_done.pop(layer))
        return self.tag_to_state.pop(tag)

    @staticmethod
    def offload(src_tensor):
        cpu_backup = torch.empty(src_tensor.size(), dtype=src_tensor.dtype, device="cpu", pin_memory=True)
        # expect: KVG001
        cpu_backup.copy_(src_tensor, non_blocking=True)
        return (src_tensor.shape, cpu_backup)

    def reload_into(self, layer, state):
        shape, cpu_backup = state
        staged = self.staging[layer % 2][: cpu_backup.numel()]
        # expect: KVG004
        staged.copy_(cpu_backup.view(-1), non_blocking=True)
        return staged.view(shape)

    def on_group_start_forward(self):
        started = torch.cuda.Event()
        started.record(torch.cuda.current_stream())
        self.layer_events[self.layer_index] = started

    def on_group_commit_forward(self):
        self.d2h_stream.wait_event(self.layer_events[self.layer_index])
        with torch.cuda.stream(self.d2h_stream):
            for tag, state in list(self.tag_to_state.items()):
                if tag[0] == self.layer_index and torch.is_tensor(state):
                    self.tag_to_state[tag] = self.offload(state)
                    state.record_stream(self.d2h_stream)
        offloaded = torch.cuda.Event()
        offloaded.record(self.d2h_stream)
        self.offload_done[self.layer_index] = offloaded
        self.layer_index += 1

    def on_group_start_backward(self):
        layer = self.layer_index - 1
        self.h2d_stream.wait_event(self.offload_done.pop(layer))
        with torch.cuda.stream(self.h2d_stream):
            for tag, state in list(self.tag_to_state.items()):
                if tag[0] == layer and isinstance(state, tuple):
                    self.tag_to_state[tag] = self.reload_into(layer, state)
        done = torch.cuda.Event()
        done.record(self.h2d_stream)
        self.reload_done[layer] = done

    def on_group_commit_backward(self):
        self.layer_index -= 1
