"""The whole KV of a long context, kept per layer in pinned host memory."""
import torch


class HostKV:
    def __init__(self, num_layers, seq_len, num_heads, head_dim, dtype=torch.float16):
        self.layer_shape = (num_heads, seq_len, head_dim)
        self.dtype = dtype
        self.k = torch.empty((num_layers, *self.layer_shape), dtype=dtype, pin_memory=True)
        self.v = torch.empty((num_layers, *self.layer_shape), dtype=dtype, pin_memory=True)

    @property
    def num_layers(self):
        return self.k.shape[0]

    def layer(self, i):
        return self.k[i], self.v[i]
