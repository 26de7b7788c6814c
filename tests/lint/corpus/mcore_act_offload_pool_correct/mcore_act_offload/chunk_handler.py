# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
import logging
from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

import torch

from .copy_utils import GPUTensorPool, is_graph_capturing, offload_tensor, reload_tensor

logger = logging.getLogger(__name__)


class ChunkOffloadHandler:
    """Offloads the saved activations of one model chunk, group by group."""

    def __init__(self, vp_stage: int, d2h_stream: torch.cuda.Stream,
                 h2d_stream: torch.cuda.Stream, pool: GPUTensorPool,
                 min_numel: int, pin_memory: bool):
        self.vp_stage = vp_stage
        self.d2h_stream = d2h_stream
        self.h2d_stream = h2d_stream
        self.pool = pool
        self.min_numel = min_numel
        self.pin_memory = pin_memory
        self._groups: "OrderedDict[str, List[torch.Tensor]]" = OrderedDict()
        self._cpu_backups: Dict[str, List[torch.Tensor]] = {}
        self._reloaded: Dict[str, List[torch.Tensor]] = {}
        self._fwd_events: Dict[str, torch.cuda.Event] = {}
        self._d2h_events: Dict[str, torch.cuda.Event] = {}
        self._h2d_events: Dict[str, torch.cuda.Event] = {}
        self._deferred: List[str] = []
        self._current: Optional[str] = None

    @staticmethod
    def _event(table: Dict[str, torch.cuda.Event], name: str) -> torch.cuda.Event:
        if name not in table:
            table[name] = torch.cuda.Event()
        return table[name]

    def start_group(self, name: str) -> None:
        self._current = name
        self._groups[name] = []

    def tensor_push(self, tensor: torch.Tensor) -> Tuple[str, int]:
        group = self._groups[self._current]
        group.append(tensor)
        return self._current, len(group) - 1

    def tensor_pop(self, key: Tuple[str, int]) -> torch.Tensor:
        name, idx = key
        if name in self._cpu_backups:
            self.prefetch_group_backward(name)
        if name in self._reloaded:
            torch.cuda.current_stream().wait_event(self._event(self._h2d_events, name))
            return self._reloaded[name][idx]
        return self._groups[name][idx]

    def commit_group_forward(self) -> None:
        name = self._current
        if is_graph_capturing():
            self._deferred.append(name)
            return
        self._event(self._fwd_events, name).record(torch.cuda.current_stream())
        self.d2h_stream.wait_event(self._event(self._fwd_events, name))
        self._bulk_offload_group(name)

    def flush_deferred(self) -> None:
        """Offload groups whose forward ran inside a captured graph (after replay)."""
        if not self._deferred:
            return
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        for name in self._deferred:
            self._bulk_offload_group(name)
        self._deferred.clear()

    def _bulk_offload_group(self, name: str) -> None:
        tensors = self._groups[name]
        if not tensors or any(t.numel() < self.min_numel for t in tensors):
            return
        with torch.cuda.stream(self.d2h_stream):
            backups = []
            for gpu_tensor in tensors:
                backups.append(offload_tensor(gpu_tensor, self.pin_memory))
                gpu_tensor.record_stream(self.d2h_stream)
            self._event(self._d2h_events, name).record(self.d2h_stream)
        self._cpu_backups[name] = backups
        self._groups[name] = []

    def prefetch_group_backward(self, name: str) -> None:
        if name not in self._cpu_backups:
            return
        self.h2d_stream.wait_event(self._event(self._d2h_events, name))
        self.h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.h2d_stream):
            reloaded = []
            for cpu_backup in self._cpu_backups.pop(name):
                gpu_buffer = self.pool.acquire(cpu_backup.shape, cpu_backup.dtype)
                reloaded.append(reload_tensor(cpu_backup, gpu_buffer))
            self._event(self._h2d_events, name).record(self.h2d_stream)
        self._reloaded[name] = reloaded

    def release_group_backward(self, name: str) -> None:
        for gpu_buffer in self._reloaded.pop(name, []):
            self.pool.release(gpu_buffer)
