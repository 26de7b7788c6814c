# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
import logging
from collections import defaultdict
from typing import Any, Dict, List, Tuple

import torch

from .cpu_buffers import is_offloaded, offload_to_cpu, reload_to_gpu
from .offload_config import ActivationOffloadConfig

logger = logging.getLogger(__name__)

TensorTag = Tuple[int, int]


class AsyncGroupOffloadHandler:
    """Offloads the saved tensors of each layer group on a D2H stream and brings them
    back on an H2D stream one group ahead of the backward pass."""

    def __init__(self, config: ActivationOffloadConfig):
        self.config = config
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.current_group = 0
        self.tensor_count_current_group = 0
        self.tensor_tag_to_state: Dict[TensorTag, Any] = {}
        self.pending_in_group: Dict[int, List[TensorTag]] = defaultdict(list)

    def reset(self) -> None:
        self.current_group = 0
        self.tensor_count_current_group = 0
        self.tensor_tag_to_state.clear()
        self.pending_in_group.clear()

    def _eligible(self, tensor: torch.Tensor) -> bool:
        return (
            tensor.is_cuda
            and not isinstance(tensor, torch.nn.Parameter)
            and tensor.numel() >= self.config.min_offloaded_tensor_size
            and self.current_group < self.config.num_offload_groups
        )

    def tensor_push(self, tensor: torch.Tensor, **kwargs) -> TensorTag:
        tag = (self.current_group, self.tensor_count_current_group)
        self.tensor_count_current_group += 1
        if not self._eligible(tensor):
            self.tensor_tag_to_state[tag] = tensor
        elif self.config.eager_offload:
            self.tensor_tag_to_state[tag] = offload_to_cpu(tensor, self.d2h_stream, self.config.pin_memory)
        else:
            self.tensor_tag_to_state[tag] = tensor
            self.pending_in_group[self.current_group].append(tag)
        return tag

    def tensor_pop(self, tag: TensorTag, **kwargs) -> torch.Tensor:
        state = self.tensor_tag_to_state.pop(tag)
        if is_offloaded(state):
            logger.debug(f"group {tag[0]} was not prefetched, reloading tensor {tag[1]} inline")
            self.h2d_stream.wait_stream(self.d2h_stream)
            state = reload_to_gpu(state, self.h2d_stream)
        torch.cuda.current_stream().wait_stream(self.h2d_stream)
        return state

    def bulk_offload_group(self, group_id: int) -> None:
        tags = self.pending_in_group.pop(group_id, [])
        if not tags:
            return
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        for tag in tags:
            gpu_tensor = self.tensor_tag_to_state[tag]
            self.tensor_tag_to_state[tag] = offload_to_cpu(gpu_tensor, self.d2h_stream, self.config.pin_memory)

    def bulk_reload_group(self, group_id: int) -> None:
        self.h2d_stream.wait_stream(self.d2h_stream)
        for tag, state in list(self.tensor_tag_to_state.items()):
            if tag[0] == group_id and is_offloaded(state):
                self.tensor_tag_to_state[tag] = reload_to_gpu(state, self.h2d_stream)

    def on_group_commit_forward(self) -> None:
        self.bulk_offload_group(self.current_group)
        self.current_group += 1
        self.tensor_count_current_group = 0

    def on_group_commit_backward(self) -> None:
        self.current_group -= 1
        if self.current_group > 0:
            self.bulk_reload_group(self.current_group - 1)
