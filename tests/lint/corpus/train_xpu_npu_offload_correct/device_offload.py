"""Gradient offload and parameter prefetch written against the vendor device modules, the way
DeepSpeed's XPU and NPU accelerators do it underneath: ``torch.xpu`` streams for a gradient
swap-out after backward, ``torch.npu`` (torch_npu) streams for a layer-by-layer parameter prefetch
into a reused device slot. The XPU side stream waits for the current stream before the gradient
copy; the NPU prefetch stream waits for the current stream (which ran the previous layer on the
slot) before it overwrites the slot, and the current stream waits for the prefetch before use."""

import torch
import torch_npu  # noqa: F401  (registers torch.npu)


class XpuGradOffloader:
    def __init__(self, numel):
        self.grads = torch.zeros(numel, dtype=torch.bfloat16, device="xpu")
        self.host_grads = torch.empty(numel, dtype=torch.bfloat16).pin_memory(device="xpu")
        self.stream = torch.xpu.Stream()

    def after_backward(self):
        self.stream.wait_stream(torch.xpu.current_stream())
        with torch.xpu.stream(self.stream):
            self.host_grads.copy_(self.grads, non_blocking=True)
        self.stream.synchronize()
        return self.host_grads


class NpuLayerPrefetcher:
    def __init__(self, host_layers, slot_numel):
        self.host_layers = [layer.pin_memory() for layer in host_layers]
        self.device_slot = torch.empty(slot_numel, dtype=torch.float16, device="npu")
        self.h2d = torch.npu.Stream()
        self.loaded = torch.npu.Event()

    def run(self, layer_fn, hidden):
        for index, host_layer in enumerate(self.host_layers):
            self.h2d.wait_stream(torch.npu.current_stream())
            with torch.npu.stream(self.h2d):
                self.device_slot[: host_layer.numel()].copy_(host_layer, non_blocking=True)
            self.loaded.record(self.h2d)
            torch.npu.current_stream().wait_event(self.loaded)
            hidden = layer_fn(index, self.device_slot[: host_layer.numel()], hidden)
        return hidden
