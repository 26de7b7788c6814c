from actoff.handler import ActivationOffloadHandler


class OffloadingSchedule:
    def __init__(self, layers, numel):
        self.layers = layers
        self.handler = ActivationOffloadHandler(numel)

    def forward_backward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            self.handler.offload(i, x)
        grad = x
        self.handler.reload(len(self.layers) - 1)
        for i in reversed(range(len(self.layers))):
            if i > 0:
                self.handler.reload(i - 1)  # prefetch the next activation backward will need
            act = self.handler.get(i)
            grad = self.layers[i].backward(grad, act)
        return grad
