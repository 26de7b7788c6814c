# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import torch

from .config import FineGrainedOffloadConfig
from .streams import compute_stream, get_offload_streams, new_event, on_stream

logger = logging.getLogger(__name__)

TensorTag = Tuple[int, int]


@dataclass
class OffloadGroup:
    name: str
    index: int
    device_tensors: List[Tuple[TensorTag, Optional[torch.Tensor]]] = field(default_factory=list)
    host_tensors: Dict[TensorTag, torch.Tensor] = field(default_factory=dict)
    reloaded: Dict[TensorTag, torch.Tensor] = field(default_factory=dict)
    ready_event: Any = None
    offload_event: Any = None
    reload_event: Any = None


class ChunkOffloadHandler:
    """Collects saved-for-backward tensors per module group and moves them to host memory."""

    def __init__(self, config: FineGrainedOffloadConfig):
        self.config = config
        self.groups: List[OffloadGroup] = []
        self.current: Optional[OffloadGroup] = None
        self.d2h_stream, self.h2d_stream = get_offload_streams()

    def _offloadable(self, tensor: torch.Tensor) -> bool:
        return (tensor.device.type != "cpu" and not isinstance(tensor, torch.nn.Parameter)
                and tensor.numel() >= self.config.min_offloaded_tensor_size)

    def group_start(self, name: str) -> None:
        group = OffloadGroup(name=name, index=len(self.groups))
        group.ready_event = new_event()
        group.ready_event.record(compute_stream())
        self.current = group

    def tensor_push(self, tensor: torch.Tensor) -> Any:
        group = self.current
        if group is None or not self._offloadable(tensor):
            return tensor
        tag = (group.index, len(group.device_tensors))
        group.device_tensors.append((tag, tensor))
        return tag

    def _release_previous(self) -> None:
        if not self.groups:
            return
        prev = self.groups[-1]
        compute_stream().wait_event(prev.offload_event)
        prev.device_tensors = [(tag, None) for tag, _ in prev.device_tensors]

    def group_commit(self) -> None:
        group, self.current = self.current, None
        if group is None:
            return
        self._release_previous()
        self.d2h_stream.wait_event(group.ready_event)
        with on_stream(self.d2h_stream):
            for tag, device_tensor in group.device_tensors:
                host = torch.empty(device_tensor.shape, dtype=device_tensor.dtype, device="cpu",
                                   pin_memory=self.config.pin_host_buffers)
                # expect: KVG001
                host.copy_(device_tensor, non_blocking=True)
                group.host_tensors[tag] = host
            group.offload_event = new_event()
            group.offload_event.record(self.d2h_stream)
        self.groups.append(group)
        logger.debug("offloaded group %s (%d tensors)", group.name, len(group.host_tensors))

    def _reload_group(self, group: OffloadGroup) -> None:
        self.h2d_stream.wait_event(group.offload_event)
        self.h2d_stream.wait_stream(compute_stream())
        staged = {tag: torch.empty_like(host, device=torch.accelerator.current_accelerator())
                  for tag, host in group.host_tensors.items()}
        with on_stream(self.h2d_stream):
            for tag, host in group.host_tensors.items():
                staged[tag].copy_(host, non_blocking=True)
            group.reload_event = new_event()
            group.reload_event.record(self.h2d_stream)
        group.reloaded.update(staged)

    def tensor_pop(self, saved: Any) -> torch.Tensor:
        if not isinstance(saved, tuple):
            return saved
        group = self.groups[saved[0]]
        if saved not in group.reloaded:
            self._reload_group(group)
        compute_stream().wait_event(group.reload_event)
        return group.reloaded.pop(saved)
