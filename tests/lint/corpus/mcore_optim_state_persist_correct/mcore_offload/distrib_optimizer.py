# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Offloader for the distributed optimizer's shard: fp32 main parameters and Adam moments."""

from typing import Dict

import torch

from .base import StateOffloader
from .config import OptimizerOffloadConfig


class DistributedOptimizerStateOffloader(StateOffloader):

    def __init__(self, optimizer, config: OptimizerOffloadConfig):
        super().__init__()
        self.optimizer = optimizer
        self.config = config

    def state_tensors(self) -> Dict[str, torch.Tensor]:
        tensors = {}
        for gi, group in enumerate(self.optimizer.param_groups):
            for pi, main_param in enumerate(group["params"]):
                prefix = f"group{gi}.param{pi}"
                if self.config.offload_main_params:
                    tensors[prefix + ".main"] = main_param.data
                state = self.optimizer.state.get(main_param, {})
                if self.config.offload_moments:
                    for key in ("exp_avg", "exp_avg_sq"):
                        if key in state:
                            tensors[f"{prefix}.{key}"] = state[key]
        return tensors
