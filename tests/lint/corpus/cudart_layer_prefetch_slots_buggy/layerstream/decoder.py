"""Decoder whose per-layer KV lives on the host and is streamed in layer by layer."""
import torch
import torch.nn.functional as F
from torch import nn

from .prefetcher import LayerPrefetcher


class Layer(nn.Module):
    def __init__(self, num_heads, head_dim):
        super().__init__()
        hidden = num_heads * head_dim
        self.num_heads, self.head_dim = num_heads, head_dim
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)

    def split_heads(self, x):
        b, t, _ = x.shape
        return x.view(b, t, self.num_heads, self.head_dim).transpose(1, 2)


class OffloadedDecoder(nn.Module):
    def __init__(self, host_kv, num_heads, head_dim, device="cuda"):
        super().__init__()
        self.layers = nn.ModuleList(Layer(num_heads, head_dim) for _ in range(host_kv.num_layers))
        self.prefetcher = LayerPrefetcher(host_kv, torch.device(device))
        self.to(device=device, dtype=host_kv.dtype)

    @torch.inference_mode()
    def forward(self, hidden):
        pf = self.prefetcher
        pf.prefetch(0)
        for i, layer in enumerate(self.layers):
            if i + 1 < len(self.layers):
                pf.prefetch(i + 1)
            k, v = pf.acquire(i)
            q = layer.split_heads(layer.q_proj(hidden))
            attn = F.scaled_dot_product_attention(q, k.unsqueeze(0), v.unsqueeze(0))
            attn = attn.transpose(1, 2).flatten(2)
            hidden = hidden + layer.o_proj(attn)
        return hidden
