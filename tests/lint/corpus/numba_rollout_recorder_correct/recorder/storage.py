"""Rollout storage in GPU memory, allocated once and reused every iteration."""
from dataclasses import dataclass
from typing import Dict, Optional

import torch


@dataclass
class RolloutStorage:
    num_steps: int
    num_envs: int
    obs_dim: int
    act_dim: int
    device: torch.device
    step: int = 0
    # recorded on the trainer's stream once the rollout's last GPU write is queued
    sealed: Optional[torch.cuda.Event] = None

    def __post_init__(self):
        t, n = self.num_steps, self.num_envs
        self.observations = torch.zeros((t, n, self.obs_dim), device=self.device)
        self.actions = torch.zeros((t, n, self.act_dim), device=self.device)
        self.rewards = torch.zeros((t, n), device=self.device)
        self.dones = torch.zeros((t, n), dtype=torch.uint8, device=self.device)
        self.values = torch.zeros((t + 1, n), device=self.device)

    def add(self, obs, actions, rewards, dones, values) -> None:
        if self.step >= self.num_steps:
            raise OverflowError("rollout storage is full; call clear() first")
        self.observations[self.step].copy_(obs)
        self.actions[self.step].copy_(actions)
        self.rewards[self.step].copy_(rewards)
        self.dones[self.step].copy_(dones)
        self.values[self.step].copy_(values)
        self.step += 1

    def bootstrap(self, last_values) -> None:
        self.values[self.num_steps].copy_(last_values)

    def seal(self) -> None:
        """Called by the trainer after the bootstrap value: marks the rollout complete."""
        if self.sealed is None:
            self.sealed = torch.cuda.Event()
        # re-recorded every rollout: the storage is reused, so an event recorded for an
        # earlier rollout says nothing about this one's writes
        self.sealed.record()

    def clear(self) -> None:
        self.step = 0

    def tensors(self) -> Dict[str, torch.Tensor]:
        return {
            "observations": self.observations,
            "actions": self.actions,
            "rewards": self.rewards,
            "dones": self.dones,
            "values": self.values,
        }
