# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import Any, Dict, Tuple

import torch


class PinnedStateStager:
    """Keeps a host mirror of a state dict and refreshes it on a side stream."""

    def __init__(self, pin_memory: bool = True):
        accelerator = torch.accelerator.current_accelerator()
        self.device_type = accelerator.type
        self.device_module = torch.get_device_module(self.device_type)
        self.stream = self.device_module.Stream()
        self.pin_memory = pin_memory
        self._host_buffers: Dict[str, torch.Tensor] = {}

    def _host_buffer(self, key: str, tensor: torch.Tensor) -> torch.Tensor:
        buf = self._host_buffers.get(key)
        if buf is None or buf.shape != tensor.shape or buf.dtype != tensor.dtype:
            buf = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=self.pin_memory)
            self._host_buffers[key] = buf
        return buf

    def stage(self, state_dict: Dict[str, Any]) -> Tuple[Dict[str, Any], Any]:
        """Returns the host mirror and an event that completes once every copy into it is done."""
        cpu_state: Dict[str, Any] = {}
        self.stream.wait_stream(torch.accelerator.current_stream())
        with self.device_module.stream(self.stream):
            for key, value in state_dict.items():
                if isinstance(value, torch.Tensor) and value.device.type == self.device_type:
                    buf = self._host_buffer(key, value)
                    buf.copy_(value.detach(), non_blocking=True)
                    cpu_state[key] = buf
                else:
                    cpu_state[key] = value
            staged = self.stream.record_event()
        return cpu_state, staged
