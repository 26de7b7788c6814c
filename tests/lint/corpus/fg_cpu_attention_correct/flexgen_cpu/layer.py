"""Attention layer with cpu_cache_compute=True: QKV on GPU, attention on CPU."""

import torch

from flexgen_cpu.cpu_attention import mha_gen_cpu
from flexgen_cpu.env import ExecutionEnv


class CpuCacheSelfAttention:
    def __init__(self, env: ExecutionEnv, hidden: int, n_head: int, batch: int, max_seq: int):
        self.env = env
        self.n_head = n_head
        self.w_qkv = torch.randn(3 * hidden, hidden, device=env.gpu, dtype=torch.float16)
        self.w_out = torch.randn(hidden, hidden, device=env.gpu, dtype=torch.float16)
        self.k_cache = torch.zeros(max_seq, batch, hidden)
        self.v_cache = torch.zeros(max_seq, batch, hidden)
        # Pinned staging buffer for the fresh q/k/v of one decode step.
        self.qkv_host = torch.empty(batch, 3 * hidden, dtype=torch.float16, pin_memory=True)

    def forward_gen(self, hidden: torch.Tensor, pos: int) -> torch.Tensor:
        qkv = torch.nn.functional.linear(hidden, self.w_qkv)
        self.qkv_host.copy_(qkv, non_blocking=True)
        self.env.sync()
        q, k_new, v_new = self.qkv_host.float().chunk(3, dim=-1)
        attn = mha_gen_cpu(q, k_new, v_new, self.k_cache, self.v_cache, pos, self.n_head)
        attn_gpu = attn.to(self.env.gpu, dtype=torch.float16)
        return hidden + torch.nn.functional.linear(attn_gpu, self.w_out)
