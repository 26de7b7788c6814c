# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

from typing import List

import torch

from .offload_coordinator import PartitionOffloadCoordinator


class Stage3ParamOffloadOptimizer:
    """Sub-group stepping for ZeRO-3 with offload_param enabled.

    fp32 master partitions stay on the accelerator; fp16 partitions are parked
    in pinned CPU memory between steps by the coordinator.
    """

    def __init__(
        self,
        init_optimizer: torch.optim.Optimizer,
        fp16_partitioned_groups_flat: List[torch.Tensor],
        fp32_partitioned_groups_flat: List[torch.Tensor],
    ) -> None:
        self.optimizer = init_optimizer
        self.fp16_partitioned_groups_flat = fp16_partitioned_groups_flat
        self.fp32_partitioned_groups_flat = fp32_partitioned_groups_flat
        self.param_coordinator = PartitionOffloadCoordinator(
            num_sub_groups=len(fp16_partitioned_groups_flat),
            partition_numels=[t.numel() for t in fp16_partitioned_groups_flat],
            dtype=fp16_partitioned_groups_flat[0].dtype,
        )

    def _optimizer_step(self, sub_group_id: int) -> None:
        param_group_id = 0
        fp32_param = self.fp32_partitioned_groups_flat[sub_group_id]
        self.optimizer.param_groups[param_group_id]["params"] = [fp32_param]
        self.optimizer.step()
        self.optimizer.param_groups[param_group_id]["params"] = []

    def _post_optimizer_step(self, sub_group_id: int) -> None:
        self.param_coordinator.record_partition_update(sub_group_id)

    def _update_fp16_partition(self, sub_group_id: int) -> None:
        fp16 = self.fp16_partitioned_groups_flat[sub_group_id]
        fp16.data.copy_(self.fp32_partitioned_groups_flat[sub_group_id].data)

    def _reload_fp16_partition(self, sub_group_id: int) -> None:
        gpu_flat = self.param_coordinator.fetch_sub_group(sub_group_id)
        if gpu_flat is not None:
            self.fp16_partitioned_groups_flat[sub_group_id] = gpu_flat

    @torch.no_grad()
    def step(self) -> None:
        for sub_group_id in range(len(self.fp16_partitioned_groups_flat)):
            self._reload_fp16_partition(sub_group_id)
            self._optimizer_step(sub_group_id)
            self._post_optimizer_step(sub_group_id)
            self._update_fp16_partition(sub_group_id)
            self.param_coordinator.offload_sub_group(
                sub_group_id, self.fp16_partitioned_groups_flat[sub_group_id]
            )
            self.param_coordinator.mark_not_available(sub_group_id)
