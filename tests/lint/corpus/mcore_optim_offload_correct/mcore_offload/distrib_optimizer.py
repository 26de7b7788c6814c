# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import List, Optional

import torch

from .checkpointing import OffloadedStateSaver
from .optimizer_config import OffloadConfig
from .state_offloader import OptimizerStateOffloader

logger = logging.getLogger(__name__)


class DistributedOptimizerWithOffload:
    """Subset of the distributed optimizer step that drives state offloading."""

    def __init__(self, inner_optimizer: torch.optim.Optimizer,
                 shard_fp32_from_float16_groups: List[List[torch.Tensor]],
                 config: OffloadConfig, ckpt_dir: Optional[str] = None):
        self.optimizer = inner_optimizer
        self.config = config
        self.ckpt_dir = ckpt_dir
        self.offloader = OptimizerStateOffloader(inner_optimizer, shard_fp32_from_float16_groups, config)
        self.saver = OffloadedStateSaver(config) if config.save_offloaded_state else None
        self.iteration = 0

    @torch.no_grad()
    def step_with_ready_grads(self) -> bool:
        self.offloader.reload()
        self.offloader.sync_before_step()
        self.optimizer.step()
        if self.iteration == 0:
            self.offloader.mark_optimizer_states_initialized()
        self.iteration += 1
        if self.saver is not None:
            # The CPU buffers are rewritten by the next offload.
            self.saver.wait()
        self.offloader.offload(
            self.config.offload_optimizer_states, self.config.offload_master_weights
        )
        if self.saver is not None and self.ckpt_dir is not None:
            self.saver.schedule(self.offloader, self.ckpt_dir, self.iteration)
        return True
