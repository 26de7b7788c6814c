"""Device -> pinned host staging of a flat tensor dict on a dedicated stream."""
from __future__ import annotations

from typing import Mapping

import torch


class PinnedStager:
    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.stream = torch.cuda.Stream(device=device)
        self._buffers: dict[str, torch.Tensor] = {}

    def _pinned_like(self, name: str, tensor: torch.Tensor) -> torch.Tensor:
        buf = self._buffers.get(name)
        if buf is None or buf.shape != tensor.shape or buf.dtype != tensor.dtype:
            buf = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=True)
            self._buffers[name] = buf
        return buf

    @property
    def staged_bytes(self) -> int:
        return sum(b.numel() * b.element_size() for b in self._buffers.values())

    def stage(self, tensors: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        staged: dict[str, torch.Tensor] = {}
        with torch.cuda.stream(self.stream):
            for name, tensor in tensors.items():
                buf = self._pinned_like(name, tensor)
                # expect: KVG001
                buf.copy_(tensor.detach(), non_blocking=True)
                staged[name] = buf
        return staged
