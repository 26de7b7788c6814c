# SPDX-License-Identifier: Apache-2.0
"""The slice of the training engine that drives a checkpoint engine."""

import os

import torch

from .snapshot_engine import SnapshotCheckpointEngine
from .torch_engine import TorchCheckpointEngine


def create_checkpoint_engine(config):
    if config.get("checkpoint", {}).get("async_snapshot", False):
        return SnapshotCheckpointEngine(config["checkpoint"])
    return TorchCheckpointEngine(config.get("checkpoint"))


class TrainingEngine:

    def __init__(self, module, optimizer, config):
        self.module = module
        self.optimizer = optimizer
        self.global_steps = 0
        self.checkpoint_engine = create_checkpoint_engine(config)

    def train_step(self, batch):
        loss = self.module(**batch).loss
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.global_steps += 1
        return loss.detach()

    def save_checkpoint(self, save_dir, tag=None):
        tag = tag or f"global_step{self.global_steps}"
        self.checkpoint_engine.makedirs(os.path.join(save_dir, tag), exist_ok=True)
        self.checkpoint_engine.create(tag)
        self.checkpoint_engine.save({"module": self.module.state_dict()},
                                    os.path.join(save_dir, tag, "mp_rank_00_model_states.pt"))
        self.checkpoint_engine.save({"optimizer": self.optimizer.state_dict(), "global_steps": self.global_steps},
                                    os.path.join(save_dir, tag, "zero_pp_rank_0_optim_states.pt"))
        self.checkpoint_engine.commit(tag, latest_path=os.path.join(save_dir, "latest"))
        return True

    @torch.no_grad()
    def load_checkpoint(self, load_dir, tag):
        state = self.checkpoint_engine.load(os.path.join(load_dir, tag, "mp_rank_00_model_states.pt"))
        self.module.load_state_dict(state["module"])
