# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass

OPTIMIZER_STATE_KEYS = ("exp_avg", "exp_avg_sq")
MASTER_WEIGHT_KEY = "master_param"
OFFLOAD_CKPT_WORKER_PREFIX = "mcore-offload-ckpt"


@dataclass
class OffloadConfig:
    offload_optimizer_states: bool = True
    offload_master_weights: bool = True
    pin_cpu_buffers: bool = True
    save_offloaded_state: bool = False
    num_ckpt_workers: int = 1
