"""Layer-streaming runner: only the parameters of the running layer are materialised on the GPU."""
from dataclasses import dataclass
from typing import Iterable

import torch
import torch.distributed as dist

from .partition_parameters import convert_to_zero_param
from .partitioned_param_coordinator import PartitionedParameterCoordinator


@dataclass
class DeepSpeedZeroOffloadParamConfig:
    device: str = "cpu"
    max_live_parameters: int = 4
    pin_memory: bool = True


class DeepSpeedZeRoOffload:

    def __init__(self, layers: Iterable[torch.nn.Module], offload_param_config: DeepSpeedZeroOffloadParamConfig,
                 dtype: torch.dtype = torch.float16, process_group=None):
        self.layers = list(layers)
        self.config = offload_param_config
        offload = offload_param_config.device == "cpu"
        rank, world_size = dist.get_rank(process_group), dist.get_world_size(process_group)
        max_param_numel = 0
        for layer in self.layers:
            for param in layer.parameters(recurse=False):
                max_param_numel = max(max_param_numel, param.numel())
                convert_to_zero_param(param, rank, world_size, offload)
        partition_numel = (max_param_numel + world_size - 1) // world_size
        self.coordinator = PartitionedParameterCoordinator(
            max_live_parameters=offload_param_config.max_live_parameters,
            max_param_numel=partition_numel,
            dtype=dtype,
            process_group=process_group,
        )

    @torch.no_grad()
    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            self.coordinator.fetch_sub_module(layer)
            hidden_states = layer(hidden_states)
            self.coordinator.release_sub_module(layer)
        return hidden_states
