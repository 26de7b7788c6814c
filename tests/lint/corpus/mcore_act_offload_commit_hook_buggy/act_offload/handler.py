# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
"""Group-wise activation offload with a dedicated D2H and H2D stream."""

import logging
from typing import Any, Dict, Tuple

import torch

from .tensor_utils import offload, reload, tensor_need_offloading_checker

logger = logging.getLogger(__name__)


class AsyncDoubleBufferGroupOffloadHandler:

    def __init__(self, num_offload_group: int, num_model_group: int) -> None:
        self.num_offload_group = num_offload_group
        self.num_layers = num_model_group
        self.current_group = 0
        self.tensor_count_current_group = 0
        self.tensor_tag_to_state: Dict[Tuple[int, int], Any] = {}
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.compute_stream = torch.cuda.current_stream()
        self.offload_finish_events = [torch.cuda.Event() for _ in range(num_offload_group)]

    def tensor_push(self, tensor: torch.Tensor) -> Tuple[int, int]:
        tag = (self.current_group, self.tensor_count_current_group)
        self.tensor_count_current_group += 1
        self.tensor_tag_to_state[tag] = tensor
        return tag

    def tensor_pop(self, tag: Tuple[int, int]) -> torch.Tensor:
        state = self.tensor_tag_to_state.pop(tag)
        if isinstance(state, tuple):
            return reload(state)
        return state

    def bulk_offload_group(self, group_to_offload: int) -> None:
        with torch.cuda.stream(self.d2h_stream):
            for tag, state in list(self.tensor_tag_to_state.items()):
                group_id, _ = tag
                if group_id == group_to_offload and tensor_need_offloading_checker(state):
                    state.record_stream(self.d2h_stream)
                    self.tensor_tag_to_state[tag] = offload(state)
            self.offload_finish_events[group_to_offload].record(self.d2h_stream)

    def on_group_commit_forward(self) -> None:
        if self.current_group < self.num_offload_group:
            self.bulk_offload_group(self.current_group)
        self.current_group += 1
        self.tensor_count_current_group = 0

    def on_group_commit_backward(self) -> None:
        self.current_group -= 1
        if self.current_group < self.num_offload_group:
            self.compute_stream.wait_event(self.offload_finish_events[self.current_group])
            self.h2d_stream.wait_event(self.offload_finish_events[self.current_group])
            with torch.cuda.stream(self.h2d_stream):
                for tag, state in list(self.tensor_tag_to_state.items()):
                    if tag[0] == self.current_group and isinstance(state, tuple):
                        self.tensor_tag_to_state[tag] = reload(state)
            self.compute_stream.wait_stream(self.h2d_stream)
