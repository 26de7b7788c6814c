"""FlexGen-style zig-zag schedule: weights and KV cache live in pinned host memory; while the
GPU computes (layer j, micro-batch b), the next weights and next cache are loaded and the
previous cache is stored, each on its own stream. sync() closes every step."""

import torch


class OverlapEngine:
    def __init__(self, cpu_weights, num_batches, batch_size, max_len, hidden, prompt_len, device="cuda"):
        self.num_layers = len(cpu_weights)
        self.num_batches = num_batches
        self.prompt_len = prompt_len
        self.pos = prompt_len
        cache_shape = (batch_size, max_len, hidden)
        self.cpu_weight = cpu_weights  # pinned (hidden, hidden) matrices, one per layer
        self.cpu_cache = [
            [torch.zeros(cache_shape, dtype=torch.float16, pin_memory=True) for _ in range(num_batches)]
            for _ in range(self.num_layers)
        ]
        # double-buffered weights, triple-buffered cache (next / current / previous)
        self.gpu_weight = [torch.empty_like(cpu_weights[0], device=device) for _ in range(2)]
        self.gpu_cache = [
            [torch.empty(cache_shape, dtype=torch.float16, device=device) for _ in range(num_batches)]
            for _ in range(3)
        ]
        self.hidden = [torch.zeros(batch_size, 1, hidden, dtype=torch.float16, device=device) for _ in range(num_batches)]
        self.load_weight_stream = torch.cuda.Stream()
        self.load_cache_stream = torch.cuda.Stream()
        self.store_cache_stream = torch.cuda.Stream()
        self.copy_streams = (self.load_weight_stream, self.load_cache_stream, self.store_cache_stream)
        self.compute_stream = torch.cuda.current_stream()

    def load_weight(self, j):
        if j >= self.num_layers:
            return
        with torch.cuda.stream(self.load_weight_stream):
            # expect: KVG004
            self.gpu_weight[j % 2].copy_(self.cpu_weight[j], non_blocking=True)

    def load_cache(self, j, b):
        if j >= self.num_layers:
            return
        with torch.cuda.stream(self.load_cache_stream):
            # expect: KVG004
            self.gpu_cache[j % 3][b].copy_(self.cpu_cache[j][b], non_blocking=True)

    def store_cache(self, j, b):
        if j < 0:
            return
        with torch.cuda.stream(self.store_cache_stream):
            # expect: KVG001
            self.cpu_cache[j][b].copy_(self.gpu_cache[j % 3][b], non_blocking=True)

    def compute_layer(self, j, b):
        w = self.gpu_weight[j % 2]
        kv = self.gpu_cache[j % 3][b]
        h = self.hidden[b]
        kv[:, self.pos] = (h @ w).squeeze(1)
        past = kv[:, : self.pos + 1]
        scores = torch.softmax(h @ past.transpose(1, 2), dim=-1)
        self.hidden[b] = h + scores @ past

    def sync(self):
        for stream in self.copy_streams:
            stream.synchronize()
