import torch

from .policy import CopyKind, Policy, StreamSet


class LayerwiseExecutor:
    """Owns the host-resident weights/cache and the double-buffered device working set."""

    def __init__(self, layers, hidden_size, policy: Policy, dtype=torch.float16, device="cuda"):
        self.layers = layers
        self.num_layers = len(layers)
        self.policy = policy
        self.streams = StreamSet(policy.overlap)
        max_len = policy.prompt_len + policy.gen_len
        bsz = policy.gpu_batch_size
        self.weight_home = [layer.flat_weights().pin_memory() for layer in layers]
        self.cache_home = [torch.zeros(2, bsz, max_len, hidden_size, dtype=dtype, pin_memory=True)
                           for _ in range(self.num_layers)]
        numel = max(w.numel() for w in self.weight_home)
        self.weight_buf = [torch.empty(numel, dtype=dtype, device=device) for _ in range(2)]
        self.cache_read_buf = [torch.empty(2, bsz, max_len, hidden_size, dtype=dtype, device=device)
                               for _ in range(2)]
        self.cache_write_buf = [torch.empty(2, bsz, 1, hidden_size, dtype=dtype, device=device)
                                for _ in range(2)]

    def load_weight(self, j):
        w = self.weight_home[j]
        with torch.cuda.stream(self.streams[CopyKind.LOAD_WEIGHT]):
            self.weight_buf[j % 2][: w.numel()].copy_(w, non_blocking=True)

    def load_cache(self, pos, j):
        with torch.cuda.stream(self.streams[CopyKind.LOAD_CACHE]):
            self.cache_read_buf[j % 2][:, :, :pos].copy_(self.cache_home[j][:, :, :pos], non_blocking=True)

    def store_cache(self, pos, j):
        with torch.cuda.stream(self.streams[CopyKind.STORE_CACHE]):
            self.cache_home[j][:, :, pos:pos + 1].copy_(self.cache_write_buf[j % 2], non_blocking=True)

    def compute_layer(self, hidden, pos, j):
        layer = self.layers[j]
        return layer(hidden, self.weight_buf[j % 2], self.cache_read_buf[j % 2], self.cache_write_buf[j % 2], pos)

    def sync(self):
        torch.cuda.synchronize()
