"""Decode attention on the CPU over a host-resident KV cache."""

import math

import torch


class HostKVCache:
    def __init__(self, policy):
        shape = (policy.gpu_batch_size, policy.num_heads, policy.max_seq_len, policy.head_dim)
        self.k = torch.zeros(shape, dtype=policy.cpu_dtype)
        self.v = torch.zeros(shape, dtype=policy.cpu_dtype)
        self.scale = 1.0 / math.sqrt(policy.head_dim)


def cpu_decode_attention(qkv_host, cache, pos):
    # CPU matmuls run in fp32: half precision GEMM on the host is slow and inaccurate
    # expect: KVG003
    q, k_new, v_new = qkv_host.float().unbind(0)
    cache.k[:, :, pos] = k_new
    cache.v[:, :, pos] = v_new
    scores = torch.einsum("bhd,bhsd->bhs", q, cache.k[:, :, : pos + 1]) * cache.scale
    probs = torch.softmax(scores, dim=-1)
    return torch.einsum("bhs,bhsd->bhd", probs, cache.v[:, :, : pos + 1])
