"""A thin training engine around the offloaded optimizer."""

import torch
from deepspeed.accelerator import get_accelerator

from .optimizer import CPUOffloadOptimizer


class OffloadEngine:
    def __init__(self, model, lr=1e-4, weight_decay=0.0):
        self.module = model
        self.optimizer = CPUOffloadOptimizer(model.parameters(), lr=lr, weight_decay=weight_decay)
        self.global_steps = 0

    def __call__(self, *inputs):
        return self.module(*inputs)

    def backward(self, loss):
        (loss * self.optimizer.loss_scale).backward()
        self.optimizer.copy_grads_to_host()

    def step(self):
        # the optimizer left the compute stream waiting on its gradient copies, so once the
        # host has drained the compute stream the pinned gradients have landed
        get_accelerator().current_stream().synchronize()
        stepped = self.optimizer.step()
        self.global_steps += 1
        return stepped


def train(model, batches, lr=1e-4):
    engine = OffloadEngine(model, lr=lr)
    for inputs, targets in batches:
        loss = torch.nn.functional.cross_entropy(engine(inputs), targets)
        engine.backward(loss)
        engine.step()
    return engine
