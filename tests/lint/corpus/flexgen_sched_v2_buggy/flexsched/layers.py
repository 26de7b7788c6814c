import math

import torch
import torch.nn.functional as F

from .policy import ModelConfig
from .pytorch_backend import TorchDevice, ValueHolder, general_copy


class SelfAttention:
    def __init__(self, config: ModelConfig, gpu: TorchDevice, cpu: TorchDevice, layer_id: int):
        self.config = config
        self.gpu = gpu
        self.cpu = cpu
        self.layer_id = layer_id
        self.dtype = getattr(torch, config.dtype)
        self.prompt_len = 0

    def init_weight(self, weight_home: ValueHolder) -> None:
        h = self.config.hidden_size
        w_qkv = self.cpu.allocate_pinned((3 * h, h), self.dtype).normal_(std=0.02)
        w_out = self.cpu.allocate_pinned((h, h), self.dtype).normal_(std=0.02)
        weight_home.store((w_qkv, w_out))

    def init_cache(self, cache_home: ValueHolder, batch: int, max_len: int) -> None:
        shape = (max_len, batch * self.config.n_head, self.config.hidden_size // self.config.n_head)
        cache_home.store((self.cpu.allocate_pinned(shape, self.dtype), self.cpu.allocate_pinned(shape, self.dtype)))

    def load_weight(self, weight_home: ValueHolder, weight_read_buf: ValueHolder) -> None:
        w_qkv, w_out = weight_home.val
        weight_read_buf.store((self.gpu.load_from_host(w_qkv), self.gpu.load_from_host(w_out)))

    def load_cache(self, cache_home: ValueHolder, cache_read_buf: ValueHolder, i: int) -> None:
        k_home, v_home = cache_home.val
        end = self.prompt_len + i - 1
        cache_read_buf.store((self.gpu.load_from_host(k_home[:end]), self.gpu.load_from_host(v_home[:end])))

    def store_cache(self, cache_home: ValueHolder, cache_write_buf: ValueHolder, i: int) -> None:
        k_home, v_home = cache_home.val
        k_new, v_new = cache_write_buf.pop()
        pos = 0 if i == 0 else self.prompt_len + i - 1
        general_copy(k_home[pos:pos + k_new.shape[0]], k_new)
        general_copy(v_home[pos:pos + v_new.shape[0]], v_new)

    def forward(self, hidden: ValueHolder, cache_read_buf: ValueHolder, weight_read_buf: ValueHolder,
                cache_write_buf: ValueHolder) -> None:
        w_qkv, w_out = weight_read_buf.pop()
        k_cache, v_cache = cache_read_buf.pop()
        x = hidden.val
        b, s, h = x.shape
        n_head = self.config.n_head
        q, k, v = F.linear(x, w_qkv).split(h, dim=-1)
        to_cache = lambda t: t.reshape(b, s, n_head, h // n_head).permute(1, 0, 2, 3).reshape(s, b * n_head, -1)
        k_new, v_new = to_cache(k), to_cache(v)
        k_all = torch.cat([k_cache, k_new], dim=0)
        v_all = torch.cat([v_cache, v_new], dim=0)
        q = to_cache(q).permute(1, 0, 2)
        attn = torch.softmax(q @ k_all.permute(1, 2, 0) / math.sqrt(h // n_head), dim=-1)
        out = (attn @ v_all.permute(1, 0, 2)).reshape(b, n_head, s, -1).permute(0, 2, 1, 3).reshape(b, s, h)
        hidden.val = x + F.linear(out, w_out)
        cache_write_buf.store((k_new, v_new))
