# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Colocated RL: the policy trainer and the rollout engine share the GPUs, so the trainer
hands its optimizer memory over before each rollout and takes it back afterwards."""

import logging

from .config import OptimizerOffloadConfig
from .distrib_optimizer import DistributedOptimizerStateOffloader

logger = logging.getLogger(__name__)


class ColocatedTrainerHooks:

    def __init__(self, optimizer, config: OptimizerOffloadConfig):
        self.config = config
        self.offloader = DistributedOptimizerStateOffloader(optimizer, config)

    def before_rollout(self, iteration):
        self.offloader.offload()
        if self.config.persist_dir is not None:
            self.offloader.persist(f"{self.config.persist_dir}/iter_{iteration:07d}")
            logger.info("persisted offloaded optimizer state of iteration %d", iteration)

    def after_rollout(self):
        if self.offloader.offloaded:
            self.offloader.reload()
