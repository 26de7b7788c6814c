"""A self-attention layer whose KV cache home is in pinned CPU memory (FlexGen's layout:
``(seq, batch * heads, head_dim)``); new KV goes back home after the layer ran."""

import torch
import torch.nn.functional as F
from torch import nn

from flexsched.policy import Policy, ValueHolder


class SelfAttention(nn.Module):
    def __init__(self, hidden: int, heads: int, layer_id: int):
        super().__init__()
        self.heads, self.head_dim, self.layer_id = heads, hidden // heads, layer_id
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)

    def init_cache_one_gpu_batch(self, policy: Policy, max_len: int):
        shape = (max_len, policy.gpu_batch_size * self.heads, self.head_dim)
        k_home = torch.zeros(shape, dtype=torch.float16, pin_memory=True)
        v_home = torch.zeros(shape, dtype=torch.float16, pin_memory=True)
        return k_home, v_home

    def load_cache(self, cache_home, cache_read_buf: ValueHolder, pos: int, device) -> None:
        k_home, v_home = cache_home
        cache_read_buf.store((k_home[:pos].to(device, non_blocking=True), v_home[:pos].to(device, non_blocking=True)))

    def forward(self, hidden, cache_read_buf: ValueHolder, cache_write_buf: ValueHolder):
        b, s, _ = hidden.shape
        q, k_new, v_new = self.qkv(hidden).view(b, s, 3, self.heads, self.head_dim).unbind(2)
        # to FlexGen's (s, b * h, d)
        k_new = k_new.permute(1, 0, 2, 3).reshape(s, b * self.heads, self.head_dim).half()
        v_new = v_new.permute(1, 0, 2, 3).reshape(s, b * self.heads, self.head_dim).half()
        cached = cache_read_buf.pop()
        if cached is not None:
            # allocated on the load stream, read here on the compute stream
            for t in cached:
                t.record_stream(torch.cuda.current_stream())
        k, v = (k_new, v_new) if cached is None else (torch.cat([cached[0], k_new]), torch.cat([cached[1], v_new]))
        k = k.reshape(-1, b, self.heads, self.head_dim).permute(1, 2, 0, 3).to(q.dtype)
        v = v.reshape(-1, b, self.heads, self.head_dim).permute(1, 2, 0, 3).to(q.dtype)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k, v, is_causal=cached is None)
        cache_write_buf.store((k_new, v_new))
        return hidden + self.out(y.transpose(1, 2).reshape(b, s, -1))

    def store_cache(self, cache_home, cache_write_buf: ValueHolder, pos: int, ready: torch.cuda.Event) -> None:
        k_new, v_new = cache_write_buf.pop()
        k_home, v_home = cache_home
        indices = slice(pos, pos + k_new.shape[0])
        stream = torch.cuda.current_stream()
        # the new KV is written by this layer's kernels on the compute stream
        stream.wait_event(ready)
        # produced on the compute stream; keep the blocks alive until this stream is done with them
        k_new.record_stream(stream)
        v_new.record_stream(stream)
        k_home[indices].copy_(k_new, non_blocking=True)
        v_home[indices].copy_(v_new, non_blocking=True)
