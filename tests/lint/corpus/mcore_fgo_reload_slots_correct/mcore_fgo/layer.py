"""A decoder stack whose core-attention inputs are offloaded, one group per layer."""
import torch
import torch.nn.functional as F

from .chunk_handler import ChunkOffloadHandler
from .functions import offloaded_module_call
from .offload_manager import PipelineOffloadManager


class CoreAttention(torch.nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(hidden, 3 * hidden, bias=False)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, h // self.heads).unbind(2)
        out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return out.transpose(1, 2).reshape(b, s, h)


class OffloadedDecoder(torch.nn.Module):
    def __init__(self, hidden, heads, num_layers):
        super().__init__()
        self.attn = torch.nn.ModuleList(CoreAttention(hidden, heads) for _ in range(num_layers))
        self.proj = torch.nn.ModuleList(torch.nn.Linear(hidden, hidden) for _ in range(num_layers))

    def forward(self, x):
        handler = ChunkOffloadHandler()
        PipelineOffloadManager.get_instance().push_chunk(handler)
        for attn, proj in zip(self.attn, self.proj):
            x = x + proj(offloaded_module_call(attn, x, handler, name="core_attn"))
        return x


def train_step(model, batch, optimizer):
    loss = model(batch).float().pow(2).mean()
    PipelineOffloadManager.get_instance().pop_backward_chunk()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()
