"""A forward-hook pair in the style of accelerate's AlignDevicesHook: parameters live in pinned
host memory and are streamed into per-module device buffers before forward; buffers that
forward updates in place (running statistics) are written back to host after forward."""

import torch


class StreamedOffloadHook:
    def __init__(self, execution_device="cuda", stream=None):
        self.execution_device = torch.device(execution_device)
        self.stream = stream if stream is not None else torch.cuda.Stream(self.execution_device)
        self.host_weights = {}
        self.device_weights = {}
        self.host_state = {}
        self.device_state = {}
        self.state_saved = torch.cuda.Event()

    def init_hook(self, module):
        for name, param in module.named_parameters(recurse=False):
            self.host_weights[name] = param.detach().cpu().pin_memory()
            self.device_weights[name] = torch.empty_like(param, device=self.execution_device)
        for name, buf in module.named_buffers(recurse=False):
            self.host_state[name] = buf.detach().cpu().pin_memory()
            self.device_state[name] = buf.detach().to(self.execution_device)
        return module

    def pre_forward(self, module, args):
        compute = torch.cuda.current_stream(self.execution_device)
        # the previous forward's kernels may still read the buffers we are about to overwrite
        self.stream.wait_stream(compute)
        with torch.cuda.stream(self.stream):
            for name, host in self.host_weights.items():
                self.device_weights[name].copy_(host, non_blocking=True)
        compute.wait_stream(self.stream)
        for name, weight in self.device_weights.items():
            module._parameters[name] = torch.nn.Parameter(weight, requires_grad=False)
        for name, state in self.device_state.items():
            module._buffers[name] = state
        return args

    def post_forward(self, module, args, output):
        # forward updated the running statistics in place on the compute stream
        self.stream.wait_stream(torch.cuda.current_stream(self.execution_device))
        with torch.cuda.stream(self.stream):
            for name, state in self.device_state.items():
                self.host_state[name].copy_(state, non_blocking=True)
            self.state_saved.record()
        return output

    def running_stats(self):
        self.state_saved.synchronize()
        return {name: t.tolist() for name, t in self.host_state.items()}
