"""A transformer MLP block whose saved activations go through the offload manager."""

import torch

from .manager import PipelineOffloadManager


class LayerBoundary(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden, layer_idx):
        PipelineOffloadManager.get_instance().handler.on_layer_start(layer_idx)
        ctx.layer_idx = layer_idx
        return hidden.view_as(hidden)

    @staticmethod
    def backward(ctx, grad):
        # Backward of this layer's body has been launched: its reload buffers can be reused.
        PipelineOffloadManager.get_instance().handler.on_layer_backward_done(ctx.layer_idx)
        return grad, None


class OffloadedMLP(torch.nn.Module):
    def __init__(self, hidden, ffn, layer_idx, num_layers):
        super().__init__()
        self.norm = torch.nn.LayerNorm(hidden)
        self.fc1 = torch.nn.Linear(hidden, ffn)
        self.fc2 = torch.nn.Linear(ffn, hidden)
        self.layer_idx = layer_idx
        self.manager = PipelineOffloadManager.get_instance(num_layers)

    def forward(self, x):
        x = LayerBoundary.apply(x, self.layer_idx)
        with self.manager.saved_tensors_hooks():
            h = self.norm(x)
            h = torch.nn.functional.gelu(self.fc1(h))
            out = self.fc2(h)
        return x + out
