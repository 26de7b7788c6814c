"""Layer-wise activation offload in the shape of Megatron's CPU offload handler: saved tensors are
tagged per layer, offloaded on a d2h stream when the layer commits, and reloaded on an h2d stream
into freshly allocated device memory before the backward pops them. Bugs: the d2h stream only
waits for the compute stream when ``sync_each_layer`` is set (off by default), so the offload copy
can read activations the forward is still writing; and the debug checksum reads the pinned copy
straight after its non-blocking copy was issued."""

import torch


class LayerOffloadHandler:
    def __init__(self, num_layers, sync_each_layer=False, debug_checksums=False):
        self.num_layers = num_layers
        self.sync_each_layer = sync_each_layer
        self.debug_checksums = debug_checksums
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.offloaded = {}
        self.layer_index = 0
        self.tag_to_state = {}
        self.checksums = {}

    def tensor_push(self, tensor):
        tag = (self.layer_index, len(self.tag_to_state))
        self.tag_to_state[tag] = tensor
        return tag

    def tensor_pop(self, tag):
        torch.cuda.current_stream().wait_stream(self.h2d_stream)
        state = self.tag_to_state.pop(tag)
        state.record_stream(torch.cuda.current_stream())
        return state

    def _offload(self, tag, src_tensor):
        cpu_backup = torch.empty(src_tensor.size(), dtype=src_tensor.dtype, device="cpu", pin_memory=True)
        # expect: KVG001
        cpu_backup.copy_(src_tensor, non_blocking=True)
        if self.debug_checksums:
            # expect: KVG003
            self.checksums[tag] = cpu_backup.double().sum().item()
        return (src_tensor.device, cpu_backup)

    def on_group_commit_forward(self):
        if self.sync_each_layer:
            self.d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h_stream):
            for tag, state in list(self.tag_to_state.items()):
                if tag[0] == self.layer_index and torch.is_tensor(state) and state.is_cuda:
                    self.tag_to_state[tag] = self._offload(tag, state)
                    state.record_stream(self.d2h_stream)
        done = torch.cuda.Event()
        done.record(self.d2h_stream)
        self.offloaded[self.layer_index] = done
        self.layer_index += 1

    def on_group_start_backward(self):
        self.layer_index -= 1
        self.h2d_stream.wait_event(self.offloaded.pop(self.layer_index))
        with torch.cuda.stream(self.h2d_stream):
            for tag, state in list(self.tag_to_state.items()):
                if tag[0] == self.layer_index and isinstance(state, tuple):
                    device, cpu_backup = state
                    self.tag_to_state[tag] = cpu_backup.to(device, non_blocking=True)
