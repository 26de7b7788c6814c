"""A transformer MLP block whose activations are offloaded group by group."""

import torch
import torch.nn.functional as F
from torch.autograd.graph import saved_tensors_hooks

from .handler import ChunkOffloadHandler, group_commit
from .manager import PipelineOffloadManager


class OffloadedMLP(torch.nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.fc1 = torch.nn.Linear(hidden, ffn)
        self.fc2 = torch.nn.Linear(ffn, hidden)

    def forward(self, x):
        handler = PipelineOffloadManager.get_instance().cur_forward_chunk()
        handler.on_group_start_forward("mlp")
        with saved_tensors_hooks(handler.tensor_push, handler.tensor_pop):
            h = F.gelu(self.fc1(x))
            out = self.fc2(h)
        return group_commit(out, handler)


class OffloadedModelChunk(torch.nn.Module):
    def __init__(self, hidden, ffn, num_layers):
        super().__init__()
        self.layers = torch.nn.ModuleList(OffloadedMLP(hidden, ffn) for _ in range(num_layers))

    def forward(self, x):
        PipelineOffloadManager.get_instance().push_chunk(ChunkOffloadHandler())
        for layer in self.layers:
            x = x + layer(x)
        return x


def train_step(chunk, batch, optimizer):
    loss = chunk(batch).float().pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()
