from __future__ import annotations

import torch
import torch.nn.functional as F

from .backend import ExecutionEnv
from .policy import ModelConfig, Policy


class ValueHolder:

    def __init__(self):
        self.val = None

    def store(self, val) -> None:
        assert self.val is None, "Overwrite a value"
        self.val = val

    def pop(self):
        ret, self.val = self.val, None
        return ret


class SelfAttention:

    def __init__(self, config: ModelConfig, env: ExecutionEnv,
                 policy: Policy, layer_id: int, prompt_len: int):
        self.config, self.env, self.policy = config, env, policy
        self.layer_id = layer_id
        self.prompt_len = prompt_len
        h, dtype = config.hidden_size, config.dtype
        cpu = env.cpu
        self.w_qkv_home = cpu.allocate((h, 3 * h), dtype, policy.pin_weight)
        self.w_out_home = cpu.allocate((h, h), dtype, policy.pin_weight)
        cache_shape = (config.max_seq_len, policy.gpu_batch_size, h)
        self.k_home = cpu.allocate(cache_shape, dtype, pin_memory=True)
        self.v_home = cpu.allocate(cache_shape, dtype, pin_memory=True)

    def load_weight(self, weight_read_buf: ValueHolder) -> None:
        gpu = self.env.gpu.dev
        weight_read_buf.store((self.w_qkv_home.to(gpu, non_blocking=True),
                               self.w_out_home.to(gpu, non_blocking=True)))

    def load_cache(self, cache_read_buf: ValueHolder, i: int) -> None:
        end = self.prompt_len + i
        gpu = self.env.gpu.dev
        cache_read_buf.store((self.k_home[:end].to(gpu, non_blocking=True),
                              self.v_home[:end].to(gpu, non_blocking=True)))

    def store_cache(self, cache_write_buf: ValueHolder, i: int) -> None:
        k_new, v_new = cache_write_buf.pop()
        pos = self.prompt_len + i
        stream = torch.cuda.current_stream()
        for home, new in ((self.k_home, k_new), (self.v_home, v_new)):
            home[pos].copy_(new, non_blocking=True)
            new.record_stream(stream)

    def forward(self, hidden: torch.Tensor, cache_read_buf: ValueHolder,
                weight_read_buf: ValueHolder,
                cache_write_buf: ValueHolder) -> torch.Tensor:
        w_qkv, w_out = weight_read_buf.pop()
        k_cache, v_cache = cache_read_buf.pop()
        n_head = self.config.n_head
        q, k_new, v_new = (hidden @ w_qkv).chunk(3, dim=-1)
        k = torch.cat([k_cache, k_new.unsqueeze(0)], dim=0)
        v = torch.cat([v_cache, v_new.unsqueeze(0)], dim=0)
        b, h = q.shape
        q = q.view(1, b, n_head, -1).permute(1, 2, 0, 3)
        k = k.view(-1, b, n_head, h // n_head).permute(1, 2, 0, 3)
        v = v.view(-1, b, n_head, h // n_head).permute(1, 2, 0, 3)
        attn = F.scaled_dot_product_attention(q, k, v)
        out = attn.permute(2, 0, 1, 3).reshape(b, h) @ w_out
        cache_write_buf.store((k_new.contiguous(), v_new.contiguous()))
        return hidden + out
