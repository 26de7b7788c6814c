"""The attention layer of the FlexGen-style schedule: ``load_cache`` copies a layer's K/V from its
host home into the device working buffer, ``forward`` writes the new token's K/V into that buffer
and attends over it, ``store_cache`` copies the new token's K/V back to the host home. Which
stream each runs on is the scheduler's business. Bug: see flexsched/schedule.py."""

import torch
import torch.nn.functional as F

from flexsched.memory import general_copy


class SelfAttention:
    def __init__(self, layer_id, heads, head_dim, buffers):
        self.layer_id = layer_id
        self.heads = heads
        self.head_dim = head_dim
        self.buffers = buffers

    def load_cache(self, home, pos):
        k_buf, v_buf = self.buffers.slot(self.layer_id)
        general_copy(k_buf, slice(0, pos), home.k, slice(0, pos))
        general_copy(v_buf, slice(0, pos), home.v, slice(0, pos))

    def store_cache(self, home, pos):
        k_buf, v_buf = self.buffers.slot(self.layer_id)
        general_copy(home.k, slice(pos, pos + 1), k_buf, slice(pos, pos + 1))
        general_copy(home.v, slice(pos, pos + 1), v_buf, slice(pos, pos + 1))

    def forward(self, hidden, weights, pos):
        w_q, w_k, w_v, w_out = weights
        rows = hidden.shape[0] * self.heads
        q = (hidden @ w_q).view(1, rows, self.head_dim)
        k_buf, v_buf = self.buffers.slot(self.layer_id)
        k_buf[pos:pos + 1] = (hidden @ w_k).view(1, rows, self.head_dim)
        v_buf[pos:pos + 1] = (hidden @ w_v).view(1, rows, self.head_dim)
        keys = k_buf[: pos + 1].permute(1, 0, 2)
        values = v_buf[: pos + 1].permute(1, 0, 2)
        out = F.scaled_dot_product_attention(q.permute(1, 0, 2), keys, values)
        return out.reshape(hidden.shape[0], -1) @ w_out
