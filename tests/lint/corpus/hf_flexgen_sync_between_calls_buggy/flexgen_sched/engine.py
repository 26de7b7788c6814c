"""Zig-zag block schedule with overlapped weight / cache I/O.

Weights and the KV cache live in pinned CPU memory.  For every (layer j, gpu batch
k) step the engine prefetches the next layer's weights and the next batch's cache
into double-buffered device memory, computes the current step, and stores the new
keys/values of the previous step back to the CPU.
"""
import logging
import time

import torch
import torch.nn.functional as F

from .policy import Policy

logger = logging.getLogger(__name__)


class OverlapEngine:

    def __init__(self, weight_home, cache_home, policy: Policy, hidden_size: int, device="cuda:0"):
        # weight_home[j]: dict name -> pinned CPU tensor
        # cache_home[j][k]: pinned CPU tensor (2, max_seq_len, gpu_batch_size, hidden_size)
        self.weight_home = weight_home
        self.cache_home = cache_home
        self.policy = policy
        self.num_layers = len(weight_home)
        self.num_gpu_batches = policy.num_gpu_batches
        self.device = torch.device(device)

        self.load_weight_stream = torch.cuda.Stream(self.device)
        self.load_cache_stream = torch.cuda.Stream(self.device)
        self.store_cache_stream = torch.cuda.Stream(self.device)

        self.weight_buf = [
            {name: torch.empty_like(w, device=self.device) for name, w in weight_home[0].items()} for _ in range(2)
        ]
        cache_shape = cache_home[0][0].shape
        self.cache_buf = [torch.empty(cache_shape, dtype=torch.float16, device=self.device) for _ in range(2)]
        new_kv_shape = (2, policy.gpu_batch_size, hidden_size)
        self.new_kv = [torch.empty(new_kv_shape, dtype=torch.float16, device=self.device) for _ in range(2)]
        self.hidden = [None] * self.num_gpu_batches

    # ---------------------------------------------------------------- I/O
    def load_weight(self, j):
        if j >= self.num_layers:
            return
        with torch.cuda.stream(self.load_weight_stream):
            for name, dst in self.weight_buf[j % 2].items():
                # expect: KVG004
                dst.copy_(self.weight_home[j][name], non_blocking=True)

    def load_cache(self, j, k, t):
        if j >= self.num_layers:
            return
        with torch.cuda.stream(self.load_cache_stream):
            # expect: KVG004
            self.cache_buf[t % 2].copy_(self.cache_home[j][k], non_blocking=True)

    def store_cache(self, j, k, t, pos):
        if t < 0:
            return
        with torch.cuda.stream(self.store_cache_stream):
            # expect: KVG001
            self.cache_home[j][k][:, pos].copy_(self.new_kv[t % 2], non_blocking=True)

    def sync(self):
        # Only the I/O streams: the compute stream is allowed to run ahead.
        self.load_weight_stream.synchronize()
        self.load_cache_stream.synchronize()
        self.store_cache_stream.synchronize()

    # ------------------------------------------------------------ compute
    def compute_layer(self, j, k, t, pos):
        w = self.weight_buf[j % 2]
        h = self.hidden[k]
        q = F.linear(h, w["wq"])
        torch.matmul(h, w["wk"].t(), out=self.new_kv[t % 2][0])
        torch.matmul(h, w["wv"].t(), out=self.new_kv[t % 2][1])
        keys = self.cache_buf[t % 2][0, :pos]
        values = self.cache_buf[t % 2][1, :pos]
        scores = torch.einsum("bh,sbh->bs", q, keys) / keys.shape[-1] ** 0.5
        attn = torch.einsum("bs,sbh->bh", scores.softmax(-1), values)
        self.hidden[k] = h + F.linear(attn, w["wo"])

    # --------------------------------------------------------------- loop
    def generate_one_token(self, hidden_per_batch, pos):
        self.hidden = list(hidden_per_batch)
        tic = time.perf_counter()
        self.load_weight(0)
        self.load_cache(0, 0, 0)
        self.sync()
        prev = None
        for j in range(self.num_layers):
            for k in range(self.num_gpu_batches):
                t = j * self.num_gpu_batches + k
                if k == 0:
                    self.load_weight(j + 1)
                nj, nk = (j, k + 1) if k + 1 < self.num_gpu_batches else (j + 1, 0)
                self.load_cache(nj, nk, t + 1)
                self.compute_layer(j, k, t, pos)
                if prev is not None:
                    self.store_cache(prev[0], prev[1], t - 1, pos)
                self.sync()
                prev = (j, k)
        self.store_cache(prev[0], prev[1], self.num_layers * self.num_gpu_batches - 1, pos)
        self.sync()
        logger.debug("token at position %d took %.1f ms", pos, (time.perf_counter() - tic) * 1e3)
        return self.hidden
