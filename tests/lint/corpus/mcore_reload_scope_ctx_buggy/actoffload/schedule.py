"""Forward/backward of one micro-batch over layers whose activations are offloaded."""

import torch

from .config import ActivationOffloadConfig
from .handler import GroupOffloadHandler, ReloadScope


class OffloadedStack:
    def __init__(self, layers, config: ActivationOffloadConfig):
        self.layers = layers
        self.handler = GroupOffloadHandler(config)

    def forward_backward(self, x, grad_out):
        saved = []
        h = x
        for i, layer in enumerate(self.layers):
            acts = layer.forward_save(h)
            h = acts["out"]
            self.handler.offload_group(i, acts)
            saved.append(list(acts))
        grad = grad_out
        for i in reversed(range(len(self.layers))):
            with ReloadScope(self.handler, i) as acts:
                grad = self.layers[i].backward_from(acts, grad)
        return grad

    def train(self, batches):
        for x, grad_out in batches:
            self.forward_backward(x, grad_out)
        torch.cuda.synchronize()
