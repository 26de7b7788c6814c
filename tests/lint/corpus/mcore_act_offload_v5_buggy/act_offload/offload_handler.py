# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Any, Dict, Tuple

import torch

from .constants import MIN_OFFLOADED_TENSOR_SIZE

logger = logging.getLogger(__name__)


class ChunkOffloadHandler:
    """Offloads the saved activations of one named group to pinned CPU memory
    after the group's forward, and reloads them before the group's backward."""

    def __init__(self, device: torch.device):
        self.device = device
        self.d2h_stream = torch.cuda.Stream(device=device)
        self.h2d_stream = torch.cuda.Stream(device=device)
        self._tensor_tag_to_state: Dict[Tuple[str, int], Any] = {}
        self._tensor_count: Dict[str, int] = {}
        self._group_events: Dict[str, torch.cuda.Event] = {}
        self._offload_events: Dict[str, torch.cuda.Event] = {}
        self._reload_events: Dict[str, torch.cuda.Event] = {}
        self.current_group = None

    def tensor_need_offloading_checker(self, tensor: torch.Tensor) -> bool:
        if tensor.numel() < MIN_OFFLOADED_TENSOR_SIZE:
            return False
        if isinstance(tensor, torch.nn.Parameter):
            return False
        return not (hasattr(tensor, "offloading_activation") and not tensor.offloading_activation)

    def tensor_push(self, tensor: torch.Tensor) -> Tuple[str, int]:
        name = self.current_group
        idx = self._tensor_count.get(name, 0)
        self._tensor_count[name] = idx + 1
        tag = (name, idx)
        self._tensor_tag_to_state[tag] = tensor
        return tag

    def tensor_pop(self, tag: Tuple[str, int]) -> torch.Tensor:
        state = self._tensor_tag_to_state.pop(tag)
        assert not isinstance(state, tuple), f"group {tag[0]} was not reloaded"
        return state

    def on_group_start_forward(self, name: str) -> None:
        self.current_group = name
        self._group_events[name] = torch.cuda.current_stream(self.device).record_event()

    def on_group_commit_forward(self, name: str) -> None:
        self.bulk_offload_group(name)
        self.current_group = None

    def bulk_offload_group(self, name: str) -> None:
        self.d2h_stream.wait_event(self._group_events.pop(name))
        with torch.cuda.stream(self.d2h_stream):
            for tag, state in self._tensor_tag_to_state.items():
                if tag[0] != name or not self.tensor_need_offloading_checker(state):
                    continue
                cpu_backup = torch.empty(
                    state.size(), dtype=state.dtype, layout=state.layout, device="cpu", pin_memory=True
                )
                # expect: KVG001
                cpu_backup.copy_(state, non_blocking=True)
                self._tensor_tag_to_state[tag] = (state.device, cpu_backup, state)
            self._offload_events[name] = self.d2h_stream.record_event()

    def release_group(self, name: str) -> None:
        """Drop device references once the compute stream has seen the offload."""
        torch.cuda.current_stream(self.device).wait_event(self._offload_events[name])
        for tag, state in self._tensor_tag_to_state.items():
            if tag[0] == name and isinstance(state, tuple):
                device, cpu_backup, _ = state
                self._tensor_tag_to_state[tag] = (device, cpu_backup, None)

    def bulk_reload_group(self, name: str) -> None:
        self.h2d_stream.wait_event(self._offload_events.pop(name))
        with torch.cuda.stream(self.h2d_stream):
            for tag, state in self._tensor_tag_to_state.items():
                if tag[0] != name or not isinstance(state, tuple):
                    continue
                device, cpu_backup, _ = state
                gpu_tensor = torch.empty(cpu_backup.size(), dtype=cpu_backup.dtype, device=device)
                gpu_tensor.copy_(cpu_backup, non_blocking=True)
                self._tensor_tag_to_state[tag] = gpu_tensor
            self._reload_events[name] = self.h2d_stream.record_event()

    def on_group_commit_backward(self, name: str) -> None:
        self.bulk_reload_group(name)
        compute_stream = torch.cuda.current_stream(self.device)
        compute_stream.wait_event(self._reload_events.pop(name))
        for tag, state in self._tensor_tag_to_state.items():
            if tag[0] == name and isinstance(state, torch.Tensor):
                state.record_stream(compute_stream)
        self._tensor_count.pop(name, None)
