import torch

from .global_vars import _set_global_memory_buffer
from .layers import OffloadedMLPStack


def train(steps: int = 10, hidden: int = 1024, num_layers: int = 8, tokens: int = 4096):
    _set_global_memory_buffer()
    model = OffloadedMLPStack(hidden, num_layers)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(steps):
        x = torch.randn(tokens, hidden, device="cuda", requires_grad=True)
        loss = model(x).float().pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
