"""An accelerate hook for modules whose buffers carry state between calls.

accelerate's AlignDevicesHook(offload_buffers=True) drops a module's buffers after forward, which
loses in-place updates (running statistics, recurrent state). This hook keeps the buffers in
pinned host memory, loads them for the forward, and writes them back afterwards on a side
stream so the write-back overlaps the next module's compute.
"""

import torch
from accelerate.hooks import ModelHook


class StatefulBufferOffloadHook(ModelHook):
    def __init__(self, execution_device, buffer_names=None):
        super().__init__()
        self.execution_device = torch.device(execution_device)
        self.buffer_names = buffer_names
        self.host_buffers = {}
        self.device_buffers = {}
        self._writeback_stream = None
        self._written_back = None

    @property
    def writeback_stream(self):
        if self._writeback_stream is None:
            self._writeback_stream = torch.cuda.Stream(self.execution_device)
        return self._writeback_stream

    def init_hook(self, module):
        names = self.buffer_names or [n for n, _ in module.named_buffers(recurse=False)]
        for name in names:
            buf = module._buffers[name]
            host = torch.empty(buf.shape, dtype=buf.dtype, pin_memory=True)
            host.copy_(buf.detach().cpu())
            self.host_buffers[name] = host
            module._buffers[name] = None
        return module

    def pre_forward(self, module, *args, **kwargs):
        stream = torch.cuda.current_stream(self.execution_device)
        if self._written_back is not None:
            # the previous call's write-back must land before we read the host copy again
            stream.wait_event(self._written_back)
        for name, host in self.host_buffers.items():
            dev = host.to(self.execution_device, non_blocking=True)
            self.device_buffers[name] = dev
            module._buffers[name] = dev
        return args, kwargs

    def post_forward(self, module, output):
        stream = self.writeback_stream
        with torch.cuda.stream(stream):
            for name, dev in self.device_buffers.items():
                # expect: KVG001
                self.host_buffers[name].copy_(dev, non_blocking=True)
                dev.record_stream(stream)
                module._buffers[name] = None
            self._written_back = stream.record_event()
        self.device_buffers = {}
        return output

    def detach_hook(self, module):
        if self._written_back is not None:
            self._written_back.synchronize()
        for name, host in self.host_buffers.items():
            module._buffers[name] = host.clone()
        return module
