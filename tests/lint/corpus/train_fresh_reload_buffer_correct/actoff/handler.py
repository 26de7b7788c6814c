"""Megatron-style activation offload: activations go to pinned host memory after forward and
are reloaded on a side stream before backward needs them."""

import torch


class ActivationOffloadHandler:
    def __init__(self, numel):
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.numel = numel
        self.cpu_store = {}
        self.reloaded = {}

    def offload(self, key, act):
        host = torch.empty(act.shape, dtype=act.dtype, pin_memory=True)
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h_stream):
            host.copy_(act, non_blocking=True)
            act.record_stream(self.d2h_stream)
        self.cpu_store[key] = host

    def reload(self, key):
        host = self.cpu_store.pop(key)
        # The host copy was written on d2h_stream: the reload must follow it.
        self.h2d_stream.wait_stream(self.d2h_stream)
        with torch.cuda.stream(self.h2d_stream):
            gpu = torch.empty(self.numel, dtype=torch.bfloat16, device="cuda")
            gpu.copy_(host, non_blocking=True)
        self.reloaded[key] = gpu

    def get(self, key):
        gpu = self.reloaded.pop(key)
        compute = torch.cuda.current_stream()
        compute.wait_stream(self.h2d_stream)
        gpu.record_stream(compute)
        return gpu
