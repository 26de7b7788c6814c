"""Optimizer-state swapping in the shape DeepSpeed writes it: device-generic streams from the
accelerator object, the store issued on a side stream with nothing ordering it."""

import torch
from deepspeed.accelerator import get_accelerator


class StateSwapper:
    def __init__(self, numel):
        self.device_state = torch.zeros(numel, device=get_accelerator().device_name())
        self.host_state = torch.zeros(numel, device="cpu").pin_memory()
        self.swap_stream = get_accelerator().Stream()

    def swap_out(self):
        with get_accelerator().stream(self.swap_stream):
            # expect: KVG001
            self.host_state.copy_(self.device_state, non_blocking=True)
        self.swap_stream.synchronize()


def offload_with_device_module(host, numel):
    module = torch.get_device_module("cuda")
    device_buffer = torch.empty(numel, device="cuda")
    device_buffer.normal_()
    side = module.Stream()
    with module.stream(side):
        # expect: KVG001
        host.copy_(device_buffer, non_blocking=True)

