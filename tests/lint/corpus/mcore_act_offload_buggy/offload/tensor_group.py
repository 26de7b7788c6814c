# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.

from typing import Any, Dict, List, Optional

import torch


class OffloadTensorGroup:
    """Tensors saved for backward by one module, offloaded and reloaded together."""

    def __init__(self, name: str):
        self._name = name
        self._tensors: Dict[Any, Any] = {}
        self._compute_event: Optional[torch.cuda.Event] = None
        self._offload_event = torch.cuda.Event()
        self._reload_event = torch.cuda.Event()
        self.offload = True
        self.use_cpu_pool = True
        self.checksums: Dict[Any, float] = {}
        self.host_backups: List[torch.Tensor] = []

    def push_tensor(self, tag, tensor):
        self._tensors[tag] = tensor

    def pop_tensor(self, tag):
        return self._tensors.pop(tag)

    def pop_host_backups(self) -> List[torch.Tensor]:
        backups, self.host_backups = self.host_backups, []
        return backups

    def record_compute_event(self, stream: torch.cuda.Stream):
        self._compute_event = torch.cuda.Event()
        self._compute_event.record(stream)

    def wait_compute_event(self, stream: torch.cuda.Stream):
        if self._compute_event is not None:
            stream.wait_event(self._compute_event)

    def record_offload_event(self, stream: torch.cuda.Stream):
        self._offload_event.record(stream)

    def wait_offload_event(self, stream: torch.cuda.Stream):
        stream.wait_event(self._offload_event)

    def record_reload_event(self, stream: torch.cuda.Stream):
        self._reload_event.record(stream)

    def wait_reload_event(self, stream: torch.cuda.Stream):
        stream.wait_event(self._reload_event)

    def __repr__(self):
        return f"OffloadTensorGroup({self._name}, {len(self._tensors)} tensors)"
