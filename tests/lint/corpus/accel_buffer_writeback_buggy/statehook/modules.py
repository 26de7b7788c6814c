"""Modules with state in their buffers."""

import torch


class EMANorm(torch.nn.Module):
    """Layer norm whose statistics are an exponential moving average over the calls."""

    def __init__(self, hidden, momentum=0.01, eps=1e-5):
        super().__init__()
        self.momentum = momentum
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(hidden))
        self.register_buffer("running_mean", torch.zeros(hidden))
        self.register_buffer("running_var", torch.ones(hidden))

    def forward(self, x):
        with torch.no_grad():
            flat = x.reshape(-1, x.shape[-1]).float()
            self.running_mean.lerp_(flat.mean(0), self.momentum)
            self.running_var.lerp_(flat.var(0, unbiased=False), self.momentum)
        return (x - self.running_mean) * torch.rsqrt(self.running_var + self.eps) * self.weight


class StreamingBlock(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = EMANorm(hidden)
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(hidden, 4 * hidden), torch.nn.GELU(), torch.nn.Linear(4 * hidden, hidden)
        )

    def forward(self, x):
        return x + self.mlp(self.norm(x))
