from __future__ import annotations

import functools
import os
from typing import Any

import torch
import torch.distributed as dist
import torch.nn as nn

from ._api import CPUOffloadPolicy
from ._fsdp_param import FSDPParam, ShardedState


class FSDPParamGroup:
    def __init__(self, module: nn.Module, policy: CPUOffloadPolicy, device: torch.device,
                 process_group: dist.ProcessGroup | None = None) -> None:
        self.module = module
        self.policy = policy
        self.device = device
        self.process_group = process_group
        rank = dist.get_rank(process_group) if dist.is_initialized() else 0
        world_size = dist.get_world_size(process_group) if dist.is_initialized() else 1
        self.fsdp_params = [
            FSDPParam(mod, name, f"{prefix}.{name}" if prefix else name, device, rank, world_size, policy.pin_memory)
            for prefix, mod in module.named_modules()
            for name, _ in list(mod.named_parameters(recurse=False))
        ]
        self.streams = {"offload": torch.cuda.Stream(), "reload": torch.cuda.Stream()}
        self._reshard_done: torch.cuda.Event | None = None
        self._offload_done: torch.cuda.Event | None = None

    # ------------------------------------------------------------ forward
    def pre_forward(self, module: nn.Module, args: Any) -> Any:
        self._wait_for_reload()
        for fsdp_param in self.fsdp_params:
            fsdp_param.unshard(self.process_group)
        return args

    def post_forward(self, module: nn.Module, args: Any, output: Any) -> Any:
        for fsdp_param in self.fsdp_params:
            fsdp_param.reshard()
        self._reshard_done = torch.cuda.current_stream().record_event()
        if self.policy.offload_after_forward:
            self._offload()
        return _register_pre_backward(self, output)

    def _offload(self) -> None:
        stream = self.streams["offload"]
        stream.wait_event(self._reshard_done)
        with torch.cuda.stream(stream):
            for fsdp_param in self.fsdp_params:
                fsdp_param.offload_to_cpu()
            self._offload_done = stream.record_event()
        for fsdp_param in self.fsdp_params:
            fsdp_param.release_device_shard(stream)

    # ------------------------------------------------------------ backward
    def pre_backward(self) -> None:
        if any(p.state is ShardedState.OFFLOADED for p in self.fsdp_params):
            stream = self.streams["reload"]
            stream.wait_event(self._offload_done)
            with torch.cuda.stream(stream):
                for fsdp_param in self.fsdp_params:
                    fsdp_param.reload_to_device()
        self._wait_for_reload()
        for fsdp_param in self.fsdp_params:
            fsdp_param.unshard(self.process_group)

    def _wait_for_reload(self) -> None:
        compute = torch.cuda.current_stream()
        compute.wait_stream(self.streams["reload"])
        for fsdp_param in self.fsdp_params:
            if fsdp_param.sharded_data is not None:
                fsdp_param.sharded_data.record_stream(compute)

    # ------------------------------------------------------------ checkpoint
    def save_local_shards(self, directory: str) -> str:
        """Write this rank's host shards; used by the offload-aware checkpointer."""
        if self._offload_done is not None:
            self._offload_done.synchronize()
        rank = dist.get_rank(self.process_group) if dist.is_initialized() else 0
        path = os.path.join(directory, f"shards_rank{rank:05d}.pt")
        torch.save({p.fqn: p.cpu_shard for p in self.fsdp_params}, path)
        return path


def _pre_backward_hook(group: FSDPParamGroup, grad: torch.Tensor) -> torch.Tensor:
    group.pre_backward()
    return grad


def _register_pre_backward(group: FSDPParamGroup, output: Any) -> Any:
    if isinstance(output, torch.Tensor) and output.requires_grad:
        output.register_hook(functools.partial(_pre_backward_hook, group))
    return output


def fully_shard_with_offload(module: nn.Module, policy: CPUOffloadPolicy | None = None) -> FSDPParamGroup:
    policy = policy or CPUOffloadPolicy()
    device = torch.device("cuda", torch.cuda.current_device())
    group = FSDPParamGroup(module, policy, device)
    module.register_forward_pre_hook(group.pre_forward)
    module.register_forward_hook(group.post_forward)
    module._fsdp_param_group = group
    return group
