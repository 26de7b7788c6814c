# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Release sub-module parameters after use and push their partitions to NVMe."""

import logging
from dataclasses import dataclass
from typing import Iterable

import torch
from deepspeed import comm as dist
from deepspeed.accelerator import get_accelerator

from .swapper import AsyncPartitionedParameterSwapper

logger = logging.getLogger(__name__)


@dataclass
class OffloadParamConfig:
    device: str = "nvme"
    nvme_path: str = "/local_nvme"
    reduce_before_swap: bool = False


class PartitionedParameterCoordinator:

    def __init__(self, config: OffloadParamConfig, swapper: AsyncPartitionedParameterSwapper):
        self.config = config
        self.swapper = swapper
        self.world_size = dist.get_world_size()
        self.rank = dist.get_rank()

    def _partition(self, param: torch.nn.Parameter) -> None:
        numel = param.ds_tensor.ds_numel
        start = numel * self.rank
        flat = param.data.view(-1)
        end = min(start + numel, flat.numel())
        param.ds_tensor.data[: end - start].copy_(flat[start:end])

    @torch.no_grad()
    def release_sub_module(self, sub_module: torch.nn.Module) -> None:
        params: Iterable[torch.nn.Parameter] = [
            p for p in sub_module.parameters(recurse=False) if not getattr(p, "ds_persist", False)
        ]
        if not params:
            return
        for param in params:
            self._partition(param)

        if self.config.reduce_before_swap:
            get_accelerator().synchronize()

        self.swapper.swap_out_and_release(params)
        logger.debug("released %d params of %s", len(params), sub_module.__class__.__name__)
