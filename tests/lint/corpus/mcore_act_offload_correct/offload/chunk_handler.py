# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.

import logging
from typing import List

import torch

from .config import FineGrainedOffloadConfig
from .tensor_group import OffloadTensorGroup

logger = logging.getLogger(__name__)


class ChunkOffloadHandler:
    """Offloads and reloads the activation groups of one model chunk (microbatch)."""

    def __init__(self, config: FineGrainedOffloadConfig, cpu_tensor_pool, d2h_stream, h2d_stream):
        self.config = config
        self.cpu_tensor_pool = cpu_tensor_pool
        self.d2h_stream = d2h_stream
        self.h2d_stream = h2d_stream
        self.offload_groups: List[OffloadTensorGroup] = []
        self._groups_to_reload: List[OffloadTensorGroup] = []
        self._tensor_count_current_group = 0

    def offload(self, src_tensor: torch.Tensor, use_cpu_pool: bool = True):
        if not src_tensor.is_contiguous():
            src_tensor = src_tensor.contiguous()
        if use_cpu_pool:
            cpu_backup = self.cpu_tensor_pool.allocate(src_tensor.shape, dtype=src_tensor.dtype)
        else:
            cpu_backup = torch.empty(src_tensor.shape, dtype=src_tensor.dtype, device="cpu", pin_memory=True)
        cpu_backup.copy_(src_tensor, non_blocking=True)
        return (src_tensor.device, cpu_backup, use_cpu_pool)

    def reload(self, state):
        dev, cpu_backup, use_cpu_pool = state
        gpu_tensor = torch.empty(cpu_backup.size(), dtype=cpu_backup.dtype, device=dev)
        gpu_tensor.copy_(cpu_backup, non_blocking=True)
        return gpu_tensor

    def tensor_push(self, tensor: torch.Tensor):
        if isinstance(tensor, torch.nn.Parameter) or tensor.device.type != "cuda":
            return tensor
        tag = (len(self.offload_groups), self._tensor_count_current_group)
        self._tensor_count_current_group += 1
        self.offload_groups[-1].push_tensor(tag, tensor)
        return tag

    def tensor_pop(self, tag):
        if isinstance(tag, torch.Tensor):
            return tag
        group = self.offload_groups[tag[0] - 1]
        group.wait_reload_event(torch.cuda.current_stream())
        for cpu_backup in group.pop_host_backups():
            self.cpu_tensor_pool.free(cpu_backup)
        tensor = group.pop_tensor(tag)
        assert isinstance(tensor, torch.Tensor), f"tensor {tag} was not reloaded"
        return tensor

    def on_group_start_forward(self, name: str):
        group = OffloadTensorGroup(name)
        group.use_cpu_pool = self.config.use_cpu_pool
        self.offload_groups.append(group)
        self._tensor_count_current_group = 0

    def bulk_offload_group(self, group: OffloadTensorGroup):
        with torch.cuda.stream(self.d2h_stream):
            for tag, tensor_on_device in group._tensors.items():
                if tensor_on_device.numel() < self.config.min_offloaded_tensor_size:
                    continue
                state = self.offload(tensor_on_device, use_cpu_pool=group.use_cpu_pool)
                tensor_on_device.record_stream(self.d2h_stream)
                group.push_tensor(tag, state)
            group.record_offload_event(self.d2h_stream)
        if self.config.offload_checksum:
            self.d2h_stream.synchronize()
            for tag, state in group._tensors.items():
                if isinstance(state, tuple):
                    group.checksums[tag] = state[1].double().sum().item()

    def on_group_commit_forward(self, name: str, forced_released_tensors=()):
        group = self.offload_groups[-1]
        assert group._name == name, f"commit {name} does not match open group {group._name}"
        if not group.offload:
            return
        group.record_compute_event(torch.cuda.current_stream())
        group.wait_compute_event(self.d2h_stream)
        self.bulk_offload_group(group)
        self._groups_to_reload.append(group)
        cur_stream = torch.cuda.current_stream()
        for release_tensor in forced_released_tensors:
            release_tensor.record_stream(cur_stream)
            release_tensor.untyped_storage().resize_(0)

    def bulk_reload_group(self):
        if not self._groups_to_reload:
            return
        group = self._groups_to_reload.pop()
        with torch.cuda.stream(self.h2d_stream):
            group.wait_offload_event(self.h2d_stream)
            for tag, state in list(group._tensors.items()):
                if isinstance(state, tuple):
                    group.push_tensor(tag, self.reload(state))
                    if state[2]:
                        group.host_backups.append(state[1])
            group.record_reload_event(self.h2d_stream)
