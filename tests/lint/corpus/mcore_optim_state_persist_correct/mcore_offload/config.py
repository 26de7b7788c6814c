# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass
from typing import Optional


@dataclass
class OptimizerOffloadConfig:
    """How optimizer state leaves the GPU while the rollout engine owns it."""

    offload_main_params: bool = True
    offload_moments: bool = True
    # Also write the offloaded state to local disk so that a preempted rollout worker can
    # resume training without a full checkpoint load.
    persist_dir: Optional[str] = None
