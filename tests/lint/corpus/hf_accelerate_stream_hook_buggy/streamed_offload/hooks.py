"""A ``ModelHook`` in the shape of accelerate's ``AlignDevicesHook`` / ``CpuOffload``: weights live
in pinned host memory, ``pre_forward`` brings them to the execution device on a side stream of
the device module that ``torch.get_device_module(device)`` returns, and ``post_forward`` writes
the module's updated buffers (running statistics) back to host memory. Bugs: every hooked module
stages its weights in device buffers shared by all modules with the same parameter names and
shapes, and the copy into them is not ordered behind the compute stream, so it can overwrite the
weights the previous module's kernels are still reading (KVG004); ``post_forward`` copies the
buffers the forward just updated with no barrier behind the compute stream (KVG001)."""

import torch
from accelerate.hooks import ModelHook


class StreamedOffloadHook(ModelHook):
    def __init__(self, execution_device, weights_map, buffers_map, staging):
        self.execution_device = torch.device(execution_device)
        self.device_module = torch.get_device_module(self.execution_device)
        self.stream = self.device_module.Stream(self.execution_device)
        self.weights_map = weights_map
        self.buffers_map = buffers_map
        self.staging = staging

    def pre_forward(self, module, *args, **kwargs):
        with self.device_module.stream(self.stream):
            for name, host_weight in self.weights_map.items():
                device_weight = self.staging[(name, tuple(host_weight.shape))]
                # expect: KVG004
                device_weight.copy_(host_weight, non_blocking=True)
                module._parameters[name] = torch.nn.Parameter(device_weight, requires_grad=False)
        self.device_module.current_stream().wait_stream(self.stream)
        for name, host_buffer in self.buffers_map.items():
            module._buffers[name] = host_buffer.to(self.execution_device)
        return args, kwargs

    def post_forward(self, module, output):
        with self.device_module.stream(self.stream):
            for name in self.buffers_map:
                # expect: KVG001
                self.buffers_map[name].copy_(module._buffers[name], non_blocking=True)
        for name, host_weight in self.weights_map.items():
            module._parameters[name] = torch.nn.Parameter(host_weight, requires_grad=False)
        self.stream.synchronize()
        return output
