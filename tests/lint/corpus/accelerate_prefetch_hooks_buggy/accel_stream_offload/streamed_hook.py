import math
from typing import Mapping, Optional

import torch
from accelerate.hooks import ModelHook
from accelerate.utils import send_to_device, set_module_tensor_to_device

from .state import StreamingState


def _get_tensor(module: torch.nn.Module, name: str) -> torch.Tensor:
    *path, leaf = name.split(".")
    for attr in path:
        module = getattr(module, attr)
    return module._parameters[leaf] if leaf in module._parameters else module._buffers[leaf]


class StreamedAlignDevicesHook(ModelHook):
    """`AlignDevicesHook` variant that stages offloaded weights into a shared device
    arena and prefetches the following block on a side stream."""

    def __init__(self, state: StreamingState, index: int, weights_map: Mapping[str, torch.Tensor],
                 layout: dict[str, tuple[int, torch.Size]], buffer_names=(), offload_buffers: bool = False):
        self.state = state
        self.index = index
        self.slot = state.slot_for(index)
        self.weights_map = weights_map
        self.layout = layout
        self.buffer_names = tuple(buffer_names)
        self.offload_buffers = offload_buffers
        self.next_hook: Optional["StreamedAlignDevicesHook"] = None

    def init_hook(self, module):
        for name in self.layout:
            set_module_tensor_to_device(module, name, "meta")
        return module

    def _views(self) -> dict[str, torch.Tensor]:
        arena = self.state.arenas[self.slot]
        return {
            name: arena.narrow(0, offset, math.prod(shape)).view(shape)
            for name, (offset, shape) in self.layout.items()
        }

    def prefetch(self) -> None:
        """Copy this block's weights into its arena on the side stream."""
        views = self._views()
        with torch.cuda.stream(self.state.stream):
            for name, view in views.items():
                # expect: KVG004
                view.copy_(self.weights_map[name], non_blocking=True)
            loaded = torch.cuda.Event()
            loaded.record(self.state.stream)
        self.state.loaded[self.slot] = loaded

    def pre_forward(self, module, *args, **kwargs):
        if self.slot not in self.state.loaded:
            self.prefetch()
        torch.cuda.current_stream(self.state.execution_device).wait_event(self.state.loaded.pop(self.slot))
        for name, view in self._views().items():
            set_module_tensor_to_device(module, name, self.state.execution_device, value=view)

        if self.next_hook is not None:
            self.next_hook.prefetch()
        device = self.state.execution_device
        return send_to_device(args, device), send_to_device(kwargs, device)

    def post_forward(self, module, output):
        if self.offload_buffers and module.training:
            # running statistics were updated in place by this forward
            with torch.cuda.stream(self.state.stream):
                for name in self.buffer_names:
                    # expect: KVG001
                    self.weights_map[name].copy_(_get_tensor(module, name), non_blocking=True)
        for name in self.layout:
            set_module_tensor_to_device(module, name, "meta")
        return output

    def detach_hook(self, module):
        for name in self.layout:
            set_module_tensor_to_device(module, name, "cpu", value=self.weights_map[name])
        return module
