# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Any, Dict, List, Tuple

import torch

from .config import ActivationOffloadConfig
from .tensor_ops import offload_to_host, reload_to_device

logger = logging.getLogger(__name__)

TensorTag = Tuple[int, int]


class GroupOffloadHandler:
    """Offloads the activations saved by each layer group on a dedicated D2H stream and brings them back
    on a dedicated H2D stream before the group's backward."""

    def __init__(self, config: ActivationOffloadConfig):
        self.config = config
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.tensor_tag_to_state: Dict[TensorTag, Any] = {}
        self._group_ready: Dict[int, torch.cuda.Event] = {}
        self._group_offloaded: Dict[int, torch.cuda.Event] = {}
        self.current_group = 0
        self.tensor_count_current_group = 0

    def groupid_reset(self) -> None:
        self.current_group = 0
        self.tensor_count_current_group = 0

    def tensor_push(self, tensor: torch.Tensor, **kwargs) -> TensorTag:
        tag = (self.current_group, self.tensor_count_current_group)
        self.tensor_count_current_group += 1
        self.tensor_tag_to_state[tag] = tensor
        return tag

    def tensor_pop(self, tag: TensorTag, **kwargs) -> torch.Tensor:
        state = self.tensor_tag_to_state.pop(tag)
        if isinstance(state, tuple):
            torch.cuda.current_stream().wait_stream(self.d2h_stream)
            torch.cuda.current_stream().wait_stream(self.h2d_stream)
            state = reload_to_device(state)
        return state

    def _offloadable(self, tensor: Any) -> bool:
        return (isinstance(tensor, torch.Tensor) and tensor.is_cuda
                and tensor.numel() >= self.config.min_offload_numel)

    def bulk_offload_group(self, group_id: int) -> None:
        ready = self._group_ready.pop(group_id, None)
        with torch.cuda.stream(self.d2h_stream):
            if ready is not None:
                self.d2h_stream.wait_event(ready)
            for tag, state in self.tensor_tag_to_state.items():
                if tag[0] == group_id and self._offloadable(state):
                    self.tensor_tag_to_state[tag] = offload_to_host(state, self.config.pin_memory)
            self._group_offloaded[group_id] = self.d2h_stream.record_event()

    def on_group_commit_forward(self) -> None:
        group = self.current_group
        if group < self.config.num_offload_groups:
            self._group_ready[group] = torch.cuda.current_stream().record_event()
            if self.config.double_buffer:
                if group > 0:
                    self.bulk_offload_group(group - 1)
            else:
                self.bulk_offload_group(group)
        elif group == self.config.num_offload_groups and self.config.double_buffer and group > 0:
            self.bulk_offload_group(group - 1)
        self.current_group += 1
        self.tensor_count_current_group = 0

    def bulk_reload_group(self, group_id: int) -> None:
        offloaded = self._group_offloaded.pop(group_id, None)
        with torch.cuda.stream(self.h2d_stream):
            if offloaded is not None:
                self.h2d_stream.wait_event(offloaded)
            reloaded = 0
            for tag, state in list(self.tensor_tag_to_state.items()):
                if tag[0] == group_id and isinstance(state, tuple):
                    self.tensor_tag_to_state[tag] = reload_to_device(state)
                    reloaded += 1
        logger.debug("reloaded %d activations of group %d", reloaded, group_id)

    def on_group_commit_backward(self) -> None:
        self.current_group -= 1
        if self.current_group < self.config.num_offload_groups:
            self.bulk_reload_group(self.current_group)
        torch.cuda.current_stream().wait_stream(self.h2d_stream)
