# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from dataclasses import dataclass, field
from typing import Any, Optional

import torch

from .buffers import DeviceBufferPool
from .constants import MIN_OFFLOADED_TENSOR_NUMEL, RELOAD_LOOKAHEAD

logger = logging.getLogger(__name__)


@dataclass
class OffloadedTensor:
    host: torch.Tensor
    offloaded: torch.cuda.Event
    device_copy: Optional[torch.Tensor] = None
    reloaded: Optional[torch.cuda.Event] = None


@dataclass
class OffloadGroup:
    name: str
    tensors: list[OffloadedTensor] = field(default_factory=list)


class ChunkOffloadHandler:
    """Moves the saved activations of each group to host in fprop and back in bprop."""

    def __init__(self, d2h_stream: torch.cuda.Stream, h2d_stream: torch.cuda.Stream, pool: DeviceBufferPool) -> None:
        self.d2h_stream = d2h_stream
        self.h2d_stream = h2d_stream
        self.pool = pool
        self.groups: list[OffloadGroup] = []

    def start_group(self, name: str) -> int:
        self.groups.append(OffloadGroup(name))
        return len(self.groups) - 1

    def pack(self, tensor: torch.Tensor) -> Any:
        if not self.groups or not tensor.is_cuda or tensor.numel() < MIN_OFFLOADED_TENSOR_NUMEL:
            return tensor
        compute = torch.cuda.current_stream()
        host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
        self.d2h_stream.wait_stream(compute)
        with torch.cuda.stream(self.d2h_stream):
            host.copy_(tensor, non_blocking=True)
        tensor.record_stream(self.d2h_stream)
        item = OffloadedTensor(host=host, offloaded=self.d2h_stream.record_event())
        self.groups[-1].tensors.append(item)
        return item

    def unpack(self, packed: Any) -> torch.Tensor:
        if isinstance(packed, torch.Tensor):
            return packed
        if packed.device_copy is None:
            self._reload([packed])
        compute = torch.cuda.current_stream()
        compute.wait_event(packed.reloaded)
        packed.device_copy.record_stream(compute)
        return packed.device_copy

    def _reload(self, items: list[OffloadedTensor]) -> None:
        with torch.cuda.stream(self.h2d_stream):
            self.h2d_stream.wait_stream(torch.cuda.current_stream())
            for item in items:
                if item.device_copy is not None:
                    continue
                self.h2d_stream.wait_event(item.offloaded)
                buf = self.pool.acquire(item.host.shape, item.host.dtype)
                # expect: KVG004
                buf.copy_(item.host, non_blocking=True)
                item.device_copy = buf
                item.reloaded = self.h2d_stream.record_event()

    def on_group_backward(self, group_idx: int) -> None:
        """Called right before the backward of ``group_idx`` starts."""
        done = group_idx + 1
        if done < len(self.groups):
            for item in self.groups[done].tensors:
                if item.device_copy is not None:
                    self.pool.release(item.device_copy)
                    item.device_copy = None
            self.groups[done].tensors.clear()
        for idx in range(group_idx, max(group_idx - RELOAD_LOOKAHEAD, 0) - 1, -1):
            self._reload(self.groups[idx].tensors)

    def reset(self) -> None:
        self.groups.clear()
