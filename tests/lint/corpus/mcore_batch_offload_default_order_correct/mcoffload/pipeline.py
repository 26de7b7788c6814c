import torch

from .group_offload import BulkGroupOffloader


class OffloadedTransformer:
    def __init__(self, layers):
        self.layers = layers
        self.offloader = BulkGroupOffloader()

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x, saved = layer.forward_with_saved(x)
            self.offloader.offload(i, saved)
        return x

    def backward(self, grad):
        for i in reversed(range(len(self.layers))):
            saved = self.offloader.reload(i)
            grad = self.layers[i].backward_with_saved(saved, grad)
        torch.cuda.synchronize()
        return grad
