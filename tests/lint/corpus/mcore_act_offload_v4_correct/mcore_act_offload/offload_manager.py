# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Any, Dict, List, Optional

import torch
from torch.autograd.graph import saved_tensors_hooks

from .offload_config import ActivationOffloadConfig
from .tensor_pool import OffloadTensorPool, offload_to_host, reload_to_device

logger = logging.getLogger(__name__)


class OffloadTensorGroup:
    """Tensors saved for backward by one offloaded module."""

    def __init__(self, name: str):
        self.name = name
        self.tensors: Dict[int, Any] = {}
        self.forward_event = torch.cuda.Event()
        self.offload_event = torch.cuda.Event()
        self.reload_event = torch.cuda.Event()


class PipelineOffloadManager:
    """Owns the transfer streams and the host buffer pool shared by all chunk handlers."""

    OFFLOAD_MGR: Optional["PipelineOffloadManager"] = None

    @classmethod
    def get_instance(cls, config: ActivationOffloadConfig) -> "PipelineOffloadManager":
        if cls.OFFLOAD_MGR is None:
            cls.OFFLOAD_MGR = cls(config)
        return cls.OFFLOAD_MGR

    def __init__(self, config: ActivationOffloadConfig):
        self.config = config
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.cpu_tensor_pool = OffloadTensorPool(pin_memory=config.pin_cpu_buffers)


class ChunkOffloadHandler:
    """Moves the saved activations of marked modules to the host during forward and back for backward."""

    def __init__(self, manager: PipelineOffloadManager):
        self.manager = manager
        self.groups: List[OffloadTensorGroup] = []
        self._current: Optional[OffloadTensorGroup] = None
        self._tag = 0
        self._hooks = saved_tensors_hooks(self.tensor_push, self.tensor_pop)

    def __enter__(self):
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)

    def group_start(self, name: str) -> None:
        self._current = OffloadTensorGroup(name)
        self.groups.append(self._current)

    def tensor_push(self, tensor: torch.Tensor) -> Any:
        group = self._current
        if (
            group is None
            or not tensor.is_cuda
            or isinstance(tensor, torch.nn.Parameter)
            or tensor.numel() < self.manager.config.min_offloaded_tensor_size
        ):
            return tensor
        self._tag += 1
        group.tensors[self._tag] = tensor
        return (group, self._tag)

    def tensor_pop(self, saved: Any) -> torch.Tensor:
        if not isinstance(saved, tuple):
            return saved
        group, tag = saved
        torch.cuda.current_stream().wait_event(group.reload_event)
        return group.tensors.pop(tag)

    def group_commit(self) -> None:
        group, self._current = self._current, None
        group.forward_event.record(torch.cuda.current_stream())
        d2h_stream = self.manager.d2h_stream
        d2h_stream.wait_event(group.forward_event)
        with torch.cuda.stream(d2h_stream):
            for tag, tensor in list(group.tensors.items()):
                host_tensor = self.manager.cpu_tensor_pool.allocate(tensor.shape, tensor.dtype)
                offload_to_host(host_tensor, tensor)
                tensor.record_stream(d2h_stream)
                group.tensors[tag] = (host_tensor, tensor.device)
            group.offload_event.record(d2h_stream)

    def group_reload(self, group: OffloadTensorGroup) -> None:
        h2d_stream = self.manager.h2d_stream
        h2d_stream.wait_event(group.offload_event)
        with torch.cuda.stream(h2d_stream):
            for tag, (host_tensor, device) in list(group.tensors.items()):
                group.tensors[tag] = reload_to_device(host_tensor, device)
            group.reload_event.record(h2d_stream)
        for tag, tensor in group.tensors.items():
            tensor.record_stream(torch.cuda.current_stream())


class GroupCommitFunction(torch.autograd.Function):
    """Commits the current group in forward; reloads it when backward reaches this point."""

    @staticmethod
    def forward(ctx, output: torch.Tensor, handler: ChunkOffloadHandler):
        ctx.handler = handler
        ctx.group = handler._current
        handler.group_commit()
        return output.view_as(output)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        ctx.handler.group_reload(ctx.group)
        return grad_output, None


def group_commit(output: torch.Tensor, handler: ChunkOffloadHandler) -> torch.Tensor:
    return GroupCommitFunction.apply(output, handler)
