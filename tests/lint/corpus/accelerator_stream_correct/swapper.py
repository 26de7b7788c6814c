"""The same swapper, each store ordered behind the compute stream first."""

import torch
from deepspeed.accelerator import get_accelerator


class StateSwapper:
    def __init__(self, numel):
        self.device_state = torch.zeros(numel, device=get_accelerator().device_name())
        self.host_state = torch.zeros(numel, device="cpu").pin_memory()
        self.swap_stream = get_accelerator().Stream()

    def swap_out(self):
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.swap_stream):
            self.host_state.copy_(self.device_state, non_blocking=True)
        self.swap_stream.synchronize()


def offload_with_device_module(host, numel):
    module = torch.get_device_module("cuda")
    device_buffer = torch.empty(numel, device="cuda")
    device_buffer.normal_()
    side = module.Stream()
    side.wait_stream(module.current_stream())
    with module.stream(side):
        host.copy_(device_buffer, non_blocking=True)


def offload_with_set_stream(host, numel):
    device_buffer = torch.empty(numel, device="cuda")
    side = torch.cuda.Stream()
    previous = torch.cuda.current_stream()
    side.wait_stream(previous)
    torch.cuda.set_stream(side)
    host.copy_(device_buffer, non_blocking=True)
    torch.cuda.set_stream(previous)


def copy_after_switching_back(host, numel):
    device_buffer = torch.empty(numel, device="cuda")
    side = torch.cuda.Stream()
    previous = torch.cuda.current_stream()
    torch.cuda.set_stream(side)
    torch.cuda.set_stream(previous)
    host.copy_(device_buffer, non_blocking=True)
