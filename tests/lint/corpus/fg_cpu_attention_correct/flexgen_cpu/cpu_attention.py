"""Decode-step attention computed on the CPU against a CPU-resident cache."""

import torch


def mha_gen_cpu(q, k_new, v_new, k_cache, v_cache, pos: int, n_head: int):
    """q/k_new/v_new: [b, h] float32.  k_cache/v_cache: [s, b, h] float32."""
    k_cache[pos] = k_new
    v_cache[pos] = v_new
    b, h = q.shape
    d = h // n_head
    qh = q.view(b, n_head, d)
    kh = k_cache[: pos + 1].view(pos + 1, b, n_head, d)
    vh = v_cache[: pos + 1].view(pos + 1, b, n_head, d)
    scores = torch.einsum("bnd,sbnd->bns", qh, kh) * (d ** -0.5)
    out = torch.einsum("bns,sbnd->bnd", scores.softmax(-1), vh)
    return out.reshape(b, h)
