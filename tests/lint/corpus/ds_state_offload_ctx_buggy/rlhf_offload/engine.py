from dataclasses import dataclass, field

import torch

from .offload_states import OffloadedOptimizerStates, OffloadStateTypeEnum


@dataclass
class OffloadConfig:
    enabled: bool = True
    pin_memory: bool = True
    include: tuple = field(default_factory=lambda: (OffloadStateTypeEnum.optim_states,))


class ActorEngine:
    def __init__(self, model, lr, offload: OffloadConfig):
        self.module = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.offload = offload

    def backward(self, loss):
        loss.backward()

    def step(self):
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)

    def offloaded_states(self):
        return OffloadedOptimizerStates(self.optimizer, include=self.offload.include,
                                        pin_memory=self.offload.pin_memory)
