"""One training iteration: forward/backward, optimizer step, then hand the GPU to the rollout."""

import torch.nn.functional as F

from .adam import GPUAdam
from .state_offloader import OptimizerStateOffloader
from .timeline import StepTimeline


class Trainer:
    def __init__(self, model, lr=1e-4):
        self.model = model
        self.optimizer = GPUAdam(model.parameters(), lr=lr)
        self.offloader = OptimizerStateOffloader(self.optimizer)
        self.timeline = StepTimeline()

    def train_step(self, inputs, labels):
        self.offloader.before_next_backward()
        with self.timeline.phase("forward_backward"):
            logits = self.model(inputs)
            loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten())
            loss.backward()
        with self.timeline.phase("optimizer"):
            self.optimizer.step()
        # start moving gradients and moments out while the rollout is being set up
        self.offloader.offload(self.timeline["forward_backward"], self.timeline["optimizer"])
        self.optimizer.zero_grad()
        return loss.detach()
