import logging
from typing import Dict, List, Optional, Union

import torch
import torch.nn as nn

from .constants import STATEFUL_BUFFER_SUFFIXES
from .hooks import ModelHook
from .utils import (
    build_weights_map,
    load_module_tensors,
    offload_buffers_to_host,
    release_module_tensors,
    send_to_device,
)

logger = logging.getLogger(__name__)


class StatefulCpuOffloadHook(ModelHook):
    """
    Keeps the module on the host between calls. Buffers the forward pass updates in place
    (normalization statistics, fp8 scaling history) are written back to the host copy on a
    side stream so the next module can start computing.
    """

    def __init__(self, execution_device: Optional[Union[str, torch.device]] = None) -> None:
        self.execution_device = execution_device
        self.weights_map: Dict[str, torch.Tensor] = {}
        self.stateful_names: List[str] = []
        self._writeback_event = None

    def init_hook(self, module: nn.Module) -> nn.Module:
        if self.execution_device is None:
            self.execution_device = torch.accelerator.current_accelerator()
        self.execution_device = torch.device(self.execution_device)
        self.device_module = torch.get_device_module(self.execution_device)
        self.offload_stream = self.device_module.Stream(device=self.execution_device)
        self.weights_map = build_weights_map(module)
        self.stateful_names = [n for n, _ in module.named_buffers() if n.endswith(STATEFUL_BUFFER_SUFFIXES)]
        release_module_tensors(module, self.weights_map)
        return module

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        compute_stream = self.device_module.current_stream(self.execution_device)
        if self._writeback_event is not None:
            compute_stream.wait_event(self._writeback_event)
        load_module_tensors(module, self.weights_map, self.execution_device)
        return send_to_device(args, self.execution_device), send_to_device(kwargs, self.execution_device)

    def post_forward(self, module: nn.Module, output):
        if self.stateful_names:
            self.offload_stream.wait_stream(self.device_module.current_stream(self.execution_device))
            with self.device_module.stream(self.offload_stream):
                offload_buffers_to_host(module, self.weights_map, self.stateful_names, self.offload_stream)
            self._writeback_event = self.offload_stream.record_event()
        release_module_tensors(module, self.weights_map)
        return output

    def offloaded_state(self) -> Dict[str, torch.Tensor]:
        if self._writeback_event is not None:
            self._writeback_event.synchronize()
        return dict(self.weights_map)

    def detach_hook(self, module: nn.Module) -> nn.Module:
        state = self.offloaded_state()
        load_module_tensors(module, state, self.execution_device)
        logger.info("detached offload hook from %s", type(module).__name__)
        return module
