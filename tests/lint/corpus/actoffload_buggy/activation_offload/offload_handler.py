# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from collections import defaultdict
from typing import Any, Dict, List

import torch

from .constants import MIN_OFFLOADED_TENSOR_NUMEL, NUM_RELOAD_SLOTS, OFFLOAD_STREAM_KEY, RELOAD_STREAM_KEY
from .memory_pool import empty_pinned_like, get_memcpy_stream, get_persistent_gpu_buffer

logger = logging.getLogger(__name__)


class _OffloadedTensor:
    __slots__ = ("cpu", "shape", "dtype")

    def __init__(self, cpu: torch.Tensor, shape: torch.Size, dtype: torch.dtype):
        self.cpu, self.shape, self.dtype = cpu, shape, dtype


class ChunkOffloadHandler:
    """Offloads saved activations group by group in fprop and brings them back in bprop."""

    def __init__(self, num_groups: int):
        self.num_groups = num_groups
        self.d2h_stream = get_memcpy_stream(OFFLOAD_STREAM_KEY)
        self.h2d_stream = get_memcpy_stream(RELOAD_STREAM_KEY)
        self.tensor_groups: Dict[int, List[Any]] = defaultdict(list)
        self.offload_events: Dict[int, torch.cuda.Event] = {}
        self.reload_events: Dict[int, torch.cuda.Event] = {}
        self.current_group = 0

    # saved_tensors_hooks
    def tensor_push(self, tensor: torch.Tensor) -> Any:
        group = self.tensor_groups[self.current_group]
        group.append(tensor)
        return (self.current_group, len(group) - 1)

    def tensor_pop(self, key: Any) -> torch.Tensor:
        group_id, index = key
        event = self.reload_events.pop(group_id, None)
        if event is not None:
            torch.cuda.current_stream().wait_event(event)
        return self.tensor_groups[group_id][index]

    def _offloadable(self, tensor: Any) -> bool:
        return isinstance(tensor, torch.Tensor) and tensor.is_cuda and tensor.numel() >= MIN_OFFLOADED_TENSOR_NUMEL

    def offload_group(self, group_id: int) -> None:
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        group = self.tensor_groups[group_id]
        with torch.cuda.stream(self.d2h_stream):
            for index, tensor in enumerate(group):
                if not self._offloadable(tensor):
                    continue
                cpu = empty_pinned_like(tensor)
                cpu.copy_(tensor.reshape(-1), non_blocking=True)
                tensor.record_stream(self.d2h_stream)
                group[index] = _OffloadedTensor(cpu, tensor.shape, tensor.dtype)
        self.offload_events[group_id] = self.d2h_stream.record_event()

    def reload_group(self, group_id: int) -> None:
        offloaded = self.offload_events.pop(group_id, None)
        if offloaded is None:
            return
        slot = group_id % NUM_RELOAD_SLOTS
        self.h2d_stream.wait_event(offloaded)
        group = self.tensor_groups[group_id]
        with torch.cuda.stream(self.h2d_stream):
            for index, item in enumerate(group):
                if not isinstance(item, _OffloadedTensor):
                    continue
                buf, _ = get_persistent_gpu_buffer((slot, index), item.cpu.numel(), item.dtype)
                # expect: KVG004
                buf.copy_(item.cpu, non_blocking=True)
                group[index] = buf.view(item.shape)
        self.reload_events[group_id] = self.h2d_stream.record_event()

    # group commit callbacks
    def on_group_commit_forward(self) -> None:
        if self.current_group < self.num_groups - 1:
            self.offload_group(self.current_group)
        self.current_group += 1

    def on_group_commit_backward(self) -> None:
        self.current_group -= 1
        if self.current_group > 0:
            self.reload_group(self.current_group - 1)

    def reset(self) -> None:
        """Called before the forward pass of every micro-batch."""
        self.tensor_groups.clear()
        self.offload_events.clear()
        self.reload_events.clear()
        self.current_group = 0
