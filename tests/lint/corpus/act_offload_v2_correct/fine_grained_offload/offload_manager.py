# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Any, Dict, List, Optional

import torch
from torch.autograd.graph import saved_tensors_hooks

from .events import mark_current
from .offload_config import ActivationOffloadConfig
from .stream_pool import acquire_pinned, d2h_stream, h2d_stream, release_pinned

logger = logging.getLogger(__name__)


class _OffloadedTensor:
    __slots__ = ("cpu", "device", "done")

    def __init__(self, cpu: torch.Tensor, device: torch.device, done: torch.cuda.Event):
        self.cpu = cpu
        self.device = device
        self.done = done


class ChunkOffloadHandler:
    """Collects tensors saved for backward inside an offload group and moves
    them to host once the group's forward has been committed."""

    def __init__(self, config: ActivationOffloadConfig):
        self.config = config
        self._groups: List[Dict[int, Any]] = []
        self._current: Optional[Dict[int, Any]] = None
        self._next_key = 0

    def start_group(self, name: str) -> None:
        self._current = {}
        self._groups.append(self._current)
        logger.debug("offload group %s opened (%d open)", name, len(self._groups))

    def tensor_push(self, tensor: torch.Tensor):
        if self._current is None or not tensor.is_cuda or tensor.numel() < self.config.min_offload_numel:
            return tensor
        key = self._next_key
        self._next_key += 1
        self._current[key] = tensor
        return (len(self._groups) - 1, key)

    def tensor_pop(self, handle):
        if isinstance(handle, torch.Tensor):
            return handle
        group_idx, key = handle
        return self._reload(self._groups[group_idx].pop(key))

    def on_group_commit_forward(self) -> None:
        group, self._current = self._current, None
        if not group:
            return
        stream = d2h_stream()
        fwd_done = mark_current()
        with torch.cuda.stream(stream):
            stream.wait_event(fwd_done)
            for key, tensor in list(group.items()):
                cpu = acquire_pinned(tensor.shape, tensor.dtype, self.config.pin_cpu_buffers)
                cpu.copy_(tensor, non_blocking=True)
                tensor.record_stream(stream)
                group[key] = _OffloadedTensor(cpu, tensor.device, stream.record_event())

    def _reload(self, entry: "_OffloadedTensor") -> torch.Tensor:
        stream = h2d_stream()
        stream.wait_stream(torch.cuda.current_stream())
        stream.wait_event(entry.done)
        with torch.cuda.stream(stream):
            gpu = torch.empty(entry.cpu.shape, dtype=entry.cpu.dtype, device=entry.device)
            gpu.copy_(entry.cpu, non_blocking=True)
        torch.cuda.current_stream().wait_stream(stream)
        gpu.record_stream(torch.cuda.current_stream())
        stream.synchronize()
        release_pinned(entry.cpu)
        return gpu


class _GroupCommitFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, handler: ChunkOffloadHandler, *tensors):
        handler.on_group_commit_forward()
        return tensors if len(tensors) > 1 else tensors[0]

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + grads


def group_offload_commit(handler: ChunkOffloadHandler, *tensors):
    return _GroupCommitFunction.apply(handler, *tensors)


def offload_context(handler: ChunkOffloadHandler) -> saved_tensors_hooks:
    return saved_tensors_hooks(handler.tensor_push, handler.tensor_pop)
