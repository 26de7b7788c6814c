"""A linear layer whose saved input is offloaded, written as an autograd function the way
``LinearWithGradAccumulationAndAsyncCommunication`` is."""

import torch

from .input_offload import LinearInputOffloader


class OffloadedLinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, offloader: LinearInputOffloader, layer_id: int):
        output = torch.matmul(input, weight.t())
        offloader.offload(layer_id, input)
        ctx.save_for_backward(weight)
        ctx.offloader = offloader
        ctx.layer_id = layer_id
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (weight,) = ctx.saved_tensors
        offloader, layer_id = ctx.offloader, ctx.layer_id
        total_input = offloader.get(layer_id)
        # overlap the previous layer's reload with this layer's gradient GEMMs
        offloader.prefetch(layer_id - 1)
        grad_input = grad_output.matmul(weight)
        grad_output_2d = grad_output.reshape(-1, grad_output.shape[-1])
        total_input_2d = total_input.reshape(-1, total_input.shape[-1])
        grad_weight = grad_output_2d.t().matmul(total_input_2d)
        return grad_input, grad_weight, None, None


class OffloadedLinear(torch.nn.Module):
    def __init__(self, in_features: int, out_features: int, layer_id: int, offloader):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(out_features, in_features, device="cuda"))
        torch.nn.init.xavier_uniform_(self.weight)
        self.layer_id = layer_id
        self.offloader = offloader

    def forward(self, x):
        return OffloadedLinearFunction.apply(x, self.weight, self.offloader, self.layer_id)


class OffloadedMLPStack(torch.nn.Module):
    def __init__(self, hidden: int, num_layers: int):
        super().__init__()
        self.offloader = LinearInputOffloader(num_layers)
        self.layers = torch.nn.ModuleList(
            OffloadedLinear(hidden, hidden, i, self.offloader) for i in range(num_layers))

    def forward(self, x):
        for layer in self.layers:
            x = torch.nn.functional.gelu(layer(x))
        return x
