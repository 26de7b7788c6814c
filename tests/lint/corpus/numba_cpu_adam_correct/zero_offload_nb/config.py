# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from dataclasses import dataclass
from typing import Tuple


@dataclass
class OffloadOptimizerConfig:
    lr: float = 1e-3
    betas: Tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
    adamw_mode: bool = True
    check_overflow: bool = True
    cpu_workers: int = 4

    @classmethod
    def from_ds_config(cls, ds_config: dict) -> "OffloadOptimizerConfig":
        params = ds_config.get("optimizer", {}).get("params", {})
        zero = ds_config.get("zero_optimization", {}).get("offload_optimizer", {})
        return cls(
            lr=params.get("lr", cls.lr),
            betas=tuple(params.get("betas", cls.betas)),
            eps=params.get("eps", cls.eps),
            weight_decay=params.get("weight_decay", cls.weight_decay),
            check_overflow=ds_config.get("fp16", {}).get("enabled", False),
            cpu_workers=zero.get("cpu_workers", cls.cpu_workers),
        )
