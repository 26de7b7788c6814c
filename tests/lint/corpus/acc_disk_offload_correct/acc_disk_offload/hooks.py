"""Hooks that keep mutable module buffers (KV caches, running stats) on the host between calls."""
import functools
from typing import Iterable

import torch
import torch.nn as nn

from .disk_writer import MemmapWriter, WritePayload
from .offload_config import OFFLOAD_STREAM_NAME, PIN_MEMORY
from .streams import get_stream, order_after_compute


class ModelHook:
    def init_hook(self, module: nn.Module) -> nn.Module:
        return module

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        return output


class StatefulBufferOffloadHook(ModelHook):
    def __init__(self, prefix: str, execution_device, writer: MemmapWriter, buffer_names: Iterable[str]):
        self.prefix = prefix
        self.execution_device = torch.device(execution_device)
        self.writer = writer
        self.buffer_names = list(buffer_names)
        self.host_buffers: dict[str, torch.Tensor] = {}
        self.pending: dict[str, torch.cuda.Event] = {}

    def init_hook(self, module: nn.Module) -> nn.Module:
        for name in self.buffer_names:
            buf = module._buffers[name]
            host = torch.empty(buf.shape, dtype=buf.dtype, pin_memory=PIN_MEMORY)
            host.copy_(buf)
            module._buffers[name] = host
            self.host_buffers[name] = host
        return module

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        current = torch.cuda.current_stream(self.execution_device)
        for name, host in self.host_buffers.items():
            ready = self.pending.pop(name, None)
            if ready is not None:
                current.wait_event(ready)
            module._buffers[name] = host.to(self.execution_device, non_blocking=True)
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        stream = order_after_compute(get_stream(OFFLOAD_STREAM_NAME, self.execution_device))
        for name in self.buffer_names:
            gpu_buf = module._buffers[name]
            host = torch.empty(gpu_buf.shape, dtype=gpu_buf.dtype, pin_memory=PIN_MEMORY)
            with torch.cuda.stream(stream):
                host.copy_(gpu_buf, non_blocking=True)
                ready = torch.cuda.Event()
                ready.record(stream)
            gpu_buf.record_stream(stream)
            module._buffers[name] = host
            self.host_buffers[name] = host
            self.pending[name] = ready
            self.writer.submit(WritePayload(f"{self.prefix}.{name}", host, ready))
        return output


def add_hook_to_module(module: nn.Module, hook: ModelHook) -> nn.Module:
    module = hook.init_hook(module)
    old_forward = module.forward

    @functools.wraps(old_forward)
    def new_forward(*args, **kwargs):
        args, kwargs = hook.pre_forward(module, *args, **kwargs)
        output = old_forward(*args, **kwargs)
        return hook.post_forward(module, output)

    module.forward = new_forward
    module._hf_hook = hook
    return module


def attach_buffer_offload(model: nn.Module, execution_device, writer: MemmapWriter) -> list[str]:
    """Offload every module that owns persistent buffers; returns the hooked module names."""
    hooked = []
    for name, module in model.named_modules():
        names = [n for n, b in module.named_buffers(recurse=False) if b is not None]
        if names:
            add_hook_to_module(module, StatefulBufferOffloadHook(name or "root", execution_device, writer, names))
            hooked.append(name)
    return hooked
