import logging
from typing import Dict, Optional

import torch
import torch.nn as nn

from .slots import WeightSlots
from .utils import get_device_module, set_module_tensor_from_buffer

logger = logging.getLogger(__name__)


class ModelHook:
    def init_hook(self, module):
        return module

    def pre_forward(self, module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module, output):
        return output


class StreamedAlignDevicesHook(ModelHook):
    """
    Keeps the weights of a module in CPU memory and streams them into a shared
    device slot before each forward. The weights of the following module are
    fetched on a copy stream while the current module runs.
    """

    def __init__(
        self,
        index: int,
        execution_device: torch.device,
        weights_map: Dict[str, torch.Tensor],
        slots: WeightSlots,
        copy_stream,
    ):
        self.index = index
        self.execution_device = execution_device
        self.weights_map = weights_map
        self.slots = slots
        self.copy_stream = copy_stream
        self.device_module = get_device_module(execution_device)
        self.next_hook: Optional["StreamedAlignDevicesHook"] = None
        self._fetched = False

    def _copy_in(self) -> None:
        slot = self.slots.for_index(self.index)
        with self.device_module.stream(self.copy_stream):
            for name, cpu_value in self.weights_map.items():
                # expect: KVG004
                slot[name][: cpu_value.numel()].copy_(cpu_value.view(-1), non_blocking=True)

    def prefetch(self) -> None:
        if self._fetched:
            return
        self.copy_stream.wait_stream(torch.accelerator.current_stream(self.execution_device))
        self._copy_in()
        self._fetched = True

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        if not self._fetched:
            self._copy_in()
        self._fetched = False
        torch.accelerator.current_stream(self.execution_device).wait_stream(self.copy_stream)
        slot = self.slots.for_index(self.index)
        for name, cpu_value in self.weights_map.items():
            set_module_tensor_from_buffer(module, name, slot[name], cpu_value)
        if self.next_hook is not None:
            self.next_hook.prefetch()
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        for name in self.weights_map:
            set_module_tensor_from_buffer(module, name, None, None)
        return output
