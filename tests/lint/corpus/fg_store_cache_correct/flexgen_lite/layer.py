"""A single decoder attention layer with offloaded weights and KV cache."""

import torch


class SelfAttention:
    def __init__(self, layer_id: int, hidden: int):
        self.layer_id = layer_id
        self.hidden = hidden

    def load_weight(self, weight_home: dict, weight_buf: dict) -> None:
        for name, host_w in weight_home.items():
            weight_buf[name].copy_(host_w, non_blocking=True)

    def load_cache(self, cache_home: tuple, cache_buf: tuple, seq_len: int) -> None:
        k_home, v_home = cache_home
        k_buf, v_buf = cache_buf
        k_buf[:seq_len].copy_(k_home[:seq_len], non_blocking=True)
        v_buf[:seq_len].copy_(v_home[:seq_len], non_blocking=True)

    def store_cache(self, cache_home: tuple, new_kv: tuple, pos: int) -> None:
        k_home, v_home = cache_home
        k_new, v_new = new_kv
        k_home[pos].copy_(k_new, non_blocking=True)
        v_home[pos].copy_(v_new, non_blocking=True)

    def forward(self, hidden, weight_buf: dict, cache_buf: tuple, seq_len: int):
        qkv = torch.nn.functional.linear(hidden, weight_buf["w_qkv"])
        q, k_new, v_new = qkv.chunk(3, dim=-1)
        k_buf, v_buf = cache_buf
        k = torch.cat([k_buf[:seq_len], k_new.unsqueeze(0)], dim=0)
        v = torch.cat([v_buf[:seq_len], v_new.unsqueeze(0)], dim=0)
        scores = torch.einsum("bh,sbh->bs", q, k) / (self.hidden ** 0.5)
        attn = torch.einsum("bs,sbh->bh", scores.softmax(-1), v)
        out = hidden + torch.nn.functional.linear(attn, weight_buf["w_out"])
        return out, k_new.contiguous(), v_new.contiguous()
