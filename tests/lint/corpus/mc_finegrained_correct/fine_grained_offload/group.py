"""A set of tensors offloaded / reloaded together, with per-group events."""

from typing import Dict, List, Tuple

import torch


class OffloadTensorGroup:
    def __init__(self, index: int, name: str):
        self.index = index
        self.name = name
        self._tensors: Dict[int, torch.Tensor] = {}
        self._ready_event = torch.cuda.Event()
        self._offload_event = torch.cuda.Event()
        self._reload_event = torch.cuda.Event()
        self.reloaded = False

    def push_tensor(self, tag: int, tensor: torch.Tensor) -> None:
        self._tensors[tag] = tensor

    def pop_tensor(self, tag: int) -> torch.Tensor:
        return self._tensors.pop(tag)

    def items(self) -> List[Tuple[int, torch.Tensor]]:
        return list(self._tensors.items())

    def record_ready_event(self, stream) -> None:
        self._ready_event.record(stream)

    def wait_ready_event(self, stream) -> None:
        stream.wait_event(self._ready_event)

    def record_offload_event(self, stream) -> None:
        self._offload_event.record(stream)

    def wait_offload_event(self, stream) -> None:
        stream.wait_event(self._offload_event)

    def record_reload_event(self, stream) -> None:
        self._reload_event.record(stream)

    def wait_reload_event(self, stream) -> None:
        stream.wait_event(self._reload_event)
