"""One decoder attention layer under the cpu_cache_compute policy."""

import torch

from .cpu_attention import HostKVCache, cpu_decode_attention
from .staging import QKVStaging


class CpuCacheAttention(torch.nn.Module):
    def __init__(self, hidden, policy, copy_stream):
        super().__init__()
        self.policy = policy
        self.qkv_proj = torch.nn.Linear(hidden, 3 * hidden, bias=False)
        self.out_proj = torch.nn.Linear(hidden, hidden, bias=False)
        self.cache = HostKVCache(policy)
        self.staging = QKVStaging.allocate(policy)
        self.copy_stream = copy_stream

    def forward(self, hidden, pos):
        bsz = hidden.shape[0]
        qkv = self.qkv_proj(hidden).view(bsz, 3, self.policy.num_heads, self.policy.head_dim)
        self.staging.stage(qkv.transpose(0, 1), self.copy_stream)
        attn = cpu_decode_attention(self.staging.host_qkv(), self.cache, pos)
        attn = attn.to(hidden.device, dtype=hidden.dtype, non_blocking=True)
        return self.out_proj(attn.reshape(bsz, -1))


class CpuCacheDecoder(torch.nn.Module):
    def __init__(self, hidden, num_layers, policy):
        super().__init__()
        self.copy_stream = torch.cuda.Stream()
        self.layers = torch.nn.ModuleList(
            CpuCacheAttention(hidden, policy, self.copy_stream) for _ in range(num_layers))

    @torch.no_grad()
    def decode_step(self, hidden, pos):
        for layer in self.layers:
            hidden = hidden + layer(hidden, pos)
        return hidden
