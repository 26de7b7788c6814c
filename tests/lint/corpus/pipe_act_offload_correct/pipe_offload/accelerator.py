# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

import torch


class DeviceAccelerator:
    """Thin device-generic facade in the style of deepspeed.accelerator."""

    def __init__(self):
        acc = torch.accelerator.current_accelerator()
        self._name = acc.type if acc is not None else "cpu"
        self._module = torch.get_device_module(self._name)

    def device_name(self, device_index=None) -> str:
        if device_index is None:
            return self._name
        return f"{self._name}:{device_index}"

    def current_device_name(self) -> str:
        return self.device_name(torch.accelerator.current_device_index())

    def Stream(self, **kwargs):
        return self._module.Stream(**kwargs)

    def Event(self, **kwargs):
        return self._module.Event(**kwargs)

    def stream(self, stream):
        return self._module.stream(stream)

    def current_stream(self):
        return self._module.current_stream()

    def synchronize(self) -> None:
        torch.accelerator.synchronize()

    def pin_memory(self, tensor: torch.Tensor) -> torch.Tensor:
        return tensor.pin_memory()


_accelerator = None


def get_accelerator() -> DeviceAccelerator:
    global _accelerator
    if _accelerator is None:
        _accelerator = DeviceAccelerator()
    return _accelerator
