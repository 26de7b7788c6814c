"""Prefill a shared prompt and persist its per-layer KV cache to the disk tier.

For every layer the attention projections write the new keys and values into a GPU write
buffer on the compute stream; store_cache then hands the buffer to the disk's copy threads,
and the next layer is computed while the copy threads drain the previous ones.
"""
import torch
import torch.nn.functional as F

from .copy_engine import general_copy
from .devices import TorchDevice, TorchDisk


class Policy:
    def __init__(self, cache_gpu_percent=0, cache_disk_percent=100, num_copy_threads=4):
        self.cache_gpu_percent = cache_gpu_percent
        self.cache_disk_percent = cache_disk_percent
        self.num_copy_threads = num_copy_threads


class PromptCachePrefill:
    def __init__(self, weights, seq_len, offload_dir, policy=None):
        self.policy = policy or Policy()
        self.gpu = TorchDevice("cuda:0")
        self.disk = TorchDisk(offload_dir, num_copy_threads=self.policy.num_copy_threads)
        self.weights = weights  # per layer: (w_q, w_k, w_v, w_o), fp16 on the GPU
        self.num_layers = len(weights)
        hidden = weights[0][0].shape[0]
        self.seq_len = seq_len

        self.cache_home = []
        self.cache_write_buf = []
        for j in range(self.num_layers):
            k_home = self.disk.allocate((seq_len, hidden), torch.float16, name=f"k_{j}")
            v_home = self.disk.allocate((seq_len, hidden), torch.float16, name=f"v_{j}")
            self.cache_home.append((k_home, v_home))
            k_buf = self.gpu.allocate((seq_len, hidden), torch.float16, name=f"k_buf_{j}")
            v_buf = self.gpu.allocate((seq_len, hidden), torch.float16, name=f"v_buf_{j}")
            self.cache_write_buf.append((k_buf, v_buf))

    def compute_layer(self, j, hidden):
        w_q, w_k, w_v, w_o = self.weights[j]
        k_buf, v_buf = self.cache_write_buf[j]
        torch.matmul(hidden, w_k, out=k_buf.data)
        torch.matmul(hidden, w_v, out=v_buf.data)
        q = hidden @ w_q
        attn = F.scaled_dot_product_attention(
            q.unsqueeze(0), k_buf.data.unsqueeze(0), v_buf.data.unsqueeze(0), is_causal=True
        )
        return hidden + attn.squeeze(0) @ w_o

    def store_cache(self, j):
        k_home, v_home = self.cache_home[j]
        k_buf, v_buf = self.cache_write_buf[j]
        indices = (slice(0, self.seq_len),)
        general_copy(k_home, indices, k_buf, None)
        general_copy(v_home, indices, v_buf, None)

    def run(self, hidden):
        for j in range(self.num_layers):
            hidden = self.compute_layer(j, hidden)
            self.store_cache(j)
        self.disk.synchronize()
        torch.cuda.synchronize()
        return hidden

    def close(self):
        self.disk.close_copy_threads()
