# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

import logging
from typing import Any, List, Optional, Tuple

import torch

from .config import ActivationOffloadConfig
from .offload_group import OffloadTensorGroup
from .streams import get_d2h_stream, get_h2d_stream
from .tensor_pool import GPUTensorPool

logger = logging.getLogger(__name__)


class PipelineOffloadManager:
    _instance: Optional["PipelineOffloadManager"] = None

    @classmethod
    def get_instance(cls) -> "PipelineOffloadManager":
        assert cls._instance is not None, "PipelineOffloadManager is not initialized"
        return cls._instance

    def __init__(self, config: ActivationOffloadConfig):
        self.config = config
        self.device = torch.device("cuda", torch.cuda.current_device())
        self.pool = GPUTensorPool(config.pool_tensors_per_shape)
        self._groups: List[OffloadTensorGroup] = []
        self._current: Optional[OffloadTensorGroup] = None
        self._next_tag = 0
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        PipelineOffloadManager._instance = self

    def reset_microbatch(self) -> None:
        self._groups.clear()
        self._current = None

    def group_start(self, name: str, layer_idx: int) -> None:
        self._current = OffloadTensorGroup(name, layer_idx)
        self._groups.append(self._current)

    def _eligible(self, tensor: torch.Tensor) -> bool:
        return (self._current is not None and tensor.is_cuda and not isinstance(tensor, torch.nn.Parameter)
                and tensor.numel() >= self.config.min_offloaded_tensor_size)

    def _pack(self, tensor: torch.Tensor) -> Any:
        if not self._eligible(tensor):
            return tensor
        tag = self._next_tag
        self._next_tag += 1
        self._current.push(tag, tensor)
        return (len(self._groups) - 1, tag)

    def _unpack(self, handle: Any) -> torch.Tensor:
        if isinstance(handle, tuple):
            group_idx, tag = handle
            return self._groups[group_idx].pop(tag)
        return handle

    def __enter__(self):
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        return self._hooks.__exit__(*exc)

    def group_commit_forward(self) -> None:
        self._current.offload(get_d2h_stream(), self.config.pin_cpu_buffers)
        self._current = None

    def group_commit_backward(self, group_idx: int) -> None:
        if group_idx + 1 < len(self._groups):
            for tensor in self._groups[group_idx + 1].take_reloaded():
                self.pool.release(tensor)
        h2d = get_h2d_stream()
        self._groups[group_idx].reload(h2d, self.pool, self.device)
        if group_idx > 0:
            self._groups[group_idx - 1].reload(h2d, self.pool, self.device)
        logger.debug("bprop commit of group %d: pool hits=%d misses=%d", group_idx, self.pool.hits,
                     self.pool.misses)


class _GroupCommitFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, tensor: torch.Tensor, group_idx: int) -> torch.Tensor:
        ctx.group_idx = group_idx
        PipelineOffloadManager.get_instance().group_commit_forward()
        return tensor.view_as(tensor)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> Tuple[torch.Tensor, None]:
        PipelineOffloadManager.get_instance().group_commit_backward(ctx.group_idx)
        return grad_output, None


def group_prefetch_offload_commit(tensor: torch.Tensor, group_idx: int) -> torch.Tensor:
    return _GroupCommitFunction.apply(tensor, group_idx)
