"""Zig-zag generation loop: overlap weight/cache I/O with compute."""

import torch

from flexgen_lite.layer import SelfAttention
from flexgen_lite.policy import GPU, NUM_BUFFERS, Policy
from flexgen_lite.streams import ExecutionStreams


class OptLM:
    def __init__(self, policy: Policy):
        self.policy = policy
        h, b, n = policy.hidden_size, policy.gpu_batch_size, policy.num_layers
        self.layers = [SelfAttention(j, h) for j in range(n)]
        self.weight_home = [
            {"w_qkv": torch.randn(3 * h, h).pin_memory(), "w_out": torch.randn(h, h).pin_memory()}
            for _ in range(n)
        ]
        self.cache_home = [
            (torch.zeros(policy.max_seq_len, b, h).pin_memory(),
             torch.zeros(policy.max_seq_len, b, h).pin_memory())
            for _ in range(n)
        ]
        self.weight_buf = [
            {"w_qkv": torch.empty(3 * h, h, device=GPU), "w_out": torch.empty(h, h, device=GPU)}
            for _ in range(NUM_BUFFERS)
        ]
        self.cache_buf = [
            (torch.empty(policy.max_seq_len, b, h, device=GPU),
             torch.empty(policy.max_seq_len, b, h, device=GPU))
            for _ in range(NUM_BUFFERS)
        ]
        self.new_kv: list = [None] * NUM_BUFFERS
        self.streams = ExecutionStreams()
        self.hidden = None

    def load_weight(self, j: int) -> None:
        s, p = self.streams, j % NUM_BUFFERS
        with torch.cuda.stream(s.load_weight):
            s.load_weight.wait_event(s.buf_free[p])
            self.layers[j].load_weight(self.weight_home[j], self.weight_buf[p])

    def load_cache(self, i: int, j: int) -> None:
        s, p = self.streams, j % NUM_BUFFERS
        with torch.cuda.stream(s.load_cache):
            s.load_cache.wait_event(s.buf_free[p])
            self.layers[j].load_cache(self.cache_home[j], self.cache_buf[p],
                                      self.policy.prompt_len + i)

    def compute_layer(self, i: int, j: int) -> None:
        s, p = self.streams, j % NUM_BUFFERS
        with torch.cuda.stream(s.compute):
            s.wait_loads()
            self.hidden, k_new, v_new = self.layers[j].forward(
                self.hidden, self.weight_buf[p], self.cache_buf[p], self.policy.prompt_len + i)
            self.new_kv[p] = (k_new, v_new)
            s.buf_free[p].record()
            s.kv_ready[p].record()

    def store_cache(self, i: int, j: int) -> None:
        s, p = self.streams, j % NUM_BUFFERS
        with torch.cuda.stream(s.store_cache):
            s.store_cache.wait_event(s.kv_ready[p])
            self.layers[j].store_cache(self.cache_home[j], self.new_kv[p],
                                       self.policy.prompt_len + i)

    def generate_token(self, i: int, hidden: torch.Tensor) -> torch.Tensor:
        n = self.policy.num_layers
        self.hidden = hidden
        self.load_weight(0)
        self.load_cache(i, 0)
        for j in range(n):
            if j + 1 < n:
                self.load_weight(j + 1)
                self.load_cache(i, j + 1)
            self.compute_layer(i, j)
            if j > 0:
                self.store_cache(i, j - 1)
        self.store_cache(i, n - 1)
        self.streams.sync()
        return self.hidden
