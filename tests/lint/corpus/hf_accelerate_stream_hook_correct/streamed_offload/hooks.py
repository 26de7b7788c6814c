"""A ``ModelHook`` in the shape of accelerate's ``AlignDevicesHook`` / ``CpuOffload``: weights live
in pinned host memory, ``pre_forward`` brings them to the execution device on a side stream of
the device module that ``torch.get_device_module(device)`` returns, and ``post_forward`` writes
the module's updated buffers (running statistics) back to host memory. Each load goes into a
device tensor allocated on the side stream just before it (no kernel has read it), kept alive for
the compute stream with ``record_stream``; the write-back waits on the compute stream first."""

import torch
from accelerate.hooks import ModelHook


class StreamedOffloadHook(ModelHook):
    def __init__(self, execution_device, weights_map, buffers_map):
        self.execution_device = torch.device(execution_device)
        self.device_module = torch.get_device_module(self.execution_device)
        self.stream = self.device_module.Stream(self.execution_device)
        self.weights_map = weights_map
        self.buffers_map = buffers_map

    def pre_forward(self, module, *args, **kwargs):
        compute = self.device_module.current_stream()
        loaded = []
        with self.device_module.stream(self.stream):
            for name, host_weight in self.weights_map.items():
                device_weight = torch.empty_like(host_weight, device=self.execution_device)
                device_weight.copy_(host_weight, non_blocking=True)
                loaded.append((name, device_weight))
        compute.wait_stream(self.stream)
        for name, device_weight in loaded:
            device_weight.record_stream(compute)
            module._parameters[name] = torch.nn.Parameter(device_weight, requires_grad=False)
        for name, host_buffer in self.buffers_map.items():
            module._buffers[name] = host_buffer.to(self.execution_device)
        return args, kwargs

    def post_forward(self, module, output):
        self.stream.wait_stream(self.device_module.current_stream())
        with self.device_module.stream(self.stream):
            for name in self.buffers_map:
                self.buffers_map[name].copy_(module._buffers[name], non_blocking=True)
        for name, host_weight in self.weights_map.items():
            module._parameters[name] = torch.nn.Parameter(host_weight, requires_grad=False)
        self.stream.synchronize()
        return output
