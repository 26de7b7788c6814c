"""Per-chunk handler: collects saved tensors into groups and moves whole groups."""

import torch

from .group import OffloadTensorGroup
from .manager import PipelineOffloadManager


class ChunkOffloadHandler:
    def __init__(self, min_offloaded_tensor_size=1024):
        manager = PipelineOffloadManager.get_instance()
        self.d2h_stream = manager.d2h_stream
        self.h2d_stream = manager.h2d_stream
        self.min_offloaded_tensor_size = min_offloaded_tensor_size
        self.groups = []
        self._tensor_count = 0

    def on_group_start_forward(self, name):
        self.groups.append(OffloadTensorGroup(name))
        self._tensor_count = 0

    def tensor_push(self, tensor):
        tag = (len(self.groups), self._tensor_count)
        self._tensor_count += 1
        self.groups[-1].push_tensor(tag, tensor)
        return tag

    def tensor_pop(self, tag):
        state = self.groups[tag[0] - 1].pop_tensor(tag)
        if isinstance(state, tuple):
            return state[1]
        return state

    def _should_offload(self, tensor):
        return tensor.is_cuda and tensor.numel() >= self.min_offloaded_tensor_size

    def bulk_offload_group(self, group):
        # hold the D2H stream back until the group's forward kernels have run
        group.wait_ready(self.d2h_stream)
        with torch.cuda.stream(self.d2h_stream):
            for tag, tensor_on_device in list(group._tensors.items()):
                if not self._should_offload(tensor_on_device):
                    continue
                cpu_backup = torch.empty(tensor_on_device.shape, dtype=tensor_on_device.dtype,
                                         device="cpu", pin_memory=True)
                cpu_backup.copy_(tensor_on_device, non_blocking=True)
                tensor_on_device.record_stream(self.d2h_stream)
                group.push_tensor(tag, (tensor_on_device.device, cpu_backup))
            group.record_offload_event(self.d2h_stream)

    def bulk_reload_group(self, group):
        self.h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.h2d_stream):
            group.wait_offload_event(self.h2d_stream)
            for tag, state in list(group._tensors.items()):
                if isinstance(state, tuple):
                    device, cpu_backup = state
                    restored = torch.empty(cpu_backup.shape, dtype=cpu_backup.dtype, device=device)
                    restored.copy_(cpu_backup, non_blocking=True)
                    group.push_tensor(tag, (device, restored))
            group.record_reload_event(self.h2d_stream)

    def on_group_commit_forward(self):
        group = self.groups[-1]
        group.record_ready()
        self.bulk_offload_group(group)
        return group

    def on_group_commit_backward(self, group):
        self.bulk_reload_group(group)
        group.wait_reload_event(torch.cuda.current_stream())


class GroupCommitFunction(torch.autograd.Function):
    """Identity in value; marks where a group's forward ends and its backward starts."""

    @staticmethod
    def forward(ctx, tensor, handler):
        ctx.group = handler.on_group_commit_forward()
        ctx.handler = handler
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        # runs before the group's own backward ops: bring their saved tensors back first
        ctx.handler.on_group_commit_backward(ctx.group)
        return grad_output, None


def group_commit(tensor, handler):
    return GroupCommitFunction.apply(tensor, handler)
