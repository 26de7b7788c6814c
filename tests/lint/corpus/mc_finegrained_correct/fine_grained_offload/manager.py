"""Per-chunk handler that moves group tensors between GPU and pinned CPU memory."""

from collections import defaultdict
from typing import Dict, List

import torch
from torch import nn

from .group import OffloadTensorGroup
from .pool import GpuReloadBufferPool


class ChunkOffloadHandler:
    def __init__(self):
        self._d2h_stream = torch.cuda.Stream()
        self._h2d_stream = torch.cuda.Stream()
        self._gpu_pool = GpuReloadBufferPool()
        self._groups: List[OffloadTensorGroup] = []
        self._reloaded: Dict[int, List[torch.Tensor]] = defaultdict(list)
        self._tag = 0

    def start_group(self, name: str) -> OffloadTensorGroup:
        group = OffloadTensorGroup(len(self._groups), name)
        self._groups.append(group)
        return group

    def tensor_push(self, tensor: torch.Tensor):
        if isinstance(tensor, nn.Parameter) or not tensor.is_cuda:
            return tensor
        group = self._groups[-1]
        self._tag += 1
        group.push_tensor(self._tag, tensor)
        return group.index, self._tag

    def tensor_pop(self, key) -> torch.Tensor:
        if isinstance(key, torch.Tensor):
            return key
        index, tag = key
        return self._groups[index].pop_tensor(tag)

    def offload_group(self, group: OffloadTensorGroup) -> None:
        group.wait_ready_event(self._d2h_stream)
        with torch.cuda.stream(self._d2h_stream):
            for tag, tensor in group.items():
                cpu = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=True)
                cpu.copy_(tensor, non_blocking=True)
                tensor.record_stream(self._d2h_stream)
                group.push_tensor(tag, cpu)
            group.record_offload_event(self._d2h_stream)

    def reload_group(self, group: OffloadTensorGroup) -> None:
        group.wait_offload_event(self._h2d_stream)
        with torch.cuda.stream(self._h2d_stream):
            for tag, cpu in group.items():
                buf, release = self._gpu_pool.allocate(cpu.shape, cpu.dtype)
                if release is not None:
                    self._h2d_stream.wait_event(release)
                buf.copy_(cpu, non_blocking=True)
                group.push_tensor(tag, buf)
                self._reloaded[group.index].append(buf)
            group.record_reload_event(self._h2d_stream)
        group.reloaded = True

    # ---- hooks driven by the autograd functions in layer_hooks -------------
    def on_group_commit_forward(self, group: OffloadTensorGroup) -> None:
        group.record_ready_event(torch.cuda.current_stream())
        self.offload_group(group)

    def on_group_commit_backward(self, group: OffloadTensorGroup) -> None:
        if not group.reloaded:
            self.reload_group(group)
        group.wait_reload_event(torch.cuda.current_stream())

    def on_group_finish_backward(self, group: OffloadTensorGroup) -> None:
        for buf in self._reloaded.pop(group.index, []):
            self._gpu_pool.free(buf)
        if group.index > 0:
            # Prefetch the previous group while this group's grads are computed.
            self.reload_group(self._groups[group.index - 1])
