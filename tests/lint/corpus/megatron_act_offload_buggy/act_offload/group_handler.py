"""Asynchronous, group-granular activation offloading on dedicated D2H / H2D streams."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from .base import OffloadHandler
from .copy_ops import offload_to_host, reload_to_device

TensorTag = tuple[int, int]


@dataclass
class _GroupState:
    tags: list[TensorTag] = field(default_factory=list)
    offload_done: torch.cuda.Event | None = None
    reload_done: torch.cuda.Event | None = None
    device_refs: list[torch.Tensor] = field(default_factory=list)


def _default_offload_checker(tensor: torch.Tensor) -> bool:
    return tensor.is_cuda and not isinstance(tensor, torch.nn.Parameter)


class AsyncGroupOffloadHandler(OffloadHandler):
    def __init__(
        self,
        num_offload_groups: int,
        tensor_need_offloading_checker: Callable[[torch.Tensor], bool] = _default_offload_checker,
    ) -> None:
        self.num_offload_groups = num_offload_groups
        self.tensor_need_offloading_checker = tensor_need_offloading_checker
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.groups: dict[int, _GroupState] = {}
        self.tensor_tag_to_state: dict[TensorTag, Any] = {}
        self.current_group = 0
        self.tensor_count_current_group = 0

    def _group(self, group_id: int) -> _GroupState:
        return self.groups.setdefault(group_id, _GroupState())

    # -------------------------------------------------------------- hooks
    def tensor_push(self, tensor: torch.Tensor, **kwargs) -> TensorTag:
        if self.current_group == 0 and self.tensor_count_current_group == 0:
            # first activation of a new iteration
            self.groups.clear()
        tag = (self.current_group, self.tensor_count_current_group)
        self.tensor_count_current_group += 1
        self.tensor_tag_to_state[tag] = tensor
        self._group(self.current_group).tags.append(tag)
        return tag

    def tensor_pop(self, tensor_tag: TensorTag, **kwargs) -> torch.Tensor:
        group = self.groups[tensor_tag[0]]
        state = self.tensor_tag_to_state.pop(tensor_tag)
        if isinstance(state, tuple):
            raise RuntimeError(f"saved activation {tensor_tag} was not reloaded before backward")
        if group.reload_done is not None:
            torch.cuda.current_stream().wait_event(group.reload_done)
            state.record_stream(torch.cuda.current_stream())
        return state

    # -------------------------------------------------------------- forward
    def on_group_commit_forward(self) -> None:
        self._release_device_copies(self.current_group - 1)
        if self.current_group < self.num_offload_groups:
            self.bulk_offload_group(self.current_group)
        self.current_group += 1
        self.tensor_count_current_group = 0

    def bulk_offload_group(self, group_id: int) -> None:
        group = self.groups[group_id]
        with torch.cuda.stream(self.d2h_stream):
            for tag in group.tags:
                tensor = self.tensor_tag_to_state[tag]
                if self.tensor_need_offloading_checker(tensor):
                    group.device_refs.append(tensor)
                    self.tensor_tag_to_state[tag] = offload_to_host(tensor)
            group.offload_done = self.d2h_stream.record_event()

    def _release_device_copies(self, group_id: int) -> None:
        group = self.groups.get(group_id)
        if group is None or group.offload_done is None or not group.device_refs:
            return
        # the caching allocator may hand these blocks to the compute stream once freed
        torch.cuda.current_stream().wait_event(group.offload_done)
        group.device_refs.clear()

    # -------------------------------------------------------------- backward
    def on_group_commit_backward(self) -> None:
        self.current_group -= 1
        self.bulk_reload_group(self.current_group)
        if self.current_group > 0:
            self.bulk_reload_group(self.current_group - 1)

    def bulk_reload_group(self, group_id: int) -> None:
        group = self.groups.get(group_id)
        if group is None or group.offload_done is None or group.reload_done is not None:
            return
        self._release_device_copies(group_id)
        self.h2d_stream.wait_event(group.offload_done)
        with torch.cuda.stream(self.h2d_stream):
            for tag in group.tags:
                state = self.tensor_tag_to_state.get(tag)
                if isinstance(state, tuple):
                    self.tensor_tag_to_state[tag] = reload_to_device(state)
            group.reload_done = self.h2d_stream.record_event()
