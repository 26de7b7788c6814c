"""Configuration objects for the ZeRO-Offload optimizer wrapper."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field


class OffloadDeviceEnum(str, enum.Enum):
    none = "none"
    cpu = "cpu"


@dataclass
class DeepSpeedZeroOffloadOptimizerConfig:
    device: OffloadDeviceEnum = OffloadDeviceEnum.cpu
    pin_memory: bool = True


@dataclass
class ZeroConfig:
    stage: int = 2
    overlap_comm: bool = True
    reduce_bucket_size: int = 50_000_000
    gradient_predivide_factor: float = 1.0
    offload_optimizer: DeepSpeedZeroOffloadOptimizerConfig = field(
        default_factory=DeepSpeedZeroOffloadOptimizerConfig
    )


@dataclass
class AdamConfig:
    lr: float = 1e-3
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
    adamw_mode: bool = True
