import logging

import cupy

from .constants import KV, QKV
from .cpu_attention import AttentionJob, CpuAttentionWorker
from .device import CupyEnv

logger = logging.getLogger(__name__)


def _gpu_causal_attention(q, k, v, num_heads):
    n, b, d = q.shape
    dh = d // num_heads
    q = q.reshape(n, b, num_heads, dh)
    k = k.reshape(n, b, num_heads, dh)
    v = v.reshape(n, b, num_heads, dh)
    scores = cupy.einsum("sbhd,tbhd->bhst", q, k) / float(dh) ** 0.5
    mask = cupy.triu(cupy.ones((n, n), dtype=bool), k=1)
    scores = cupy.where(mask, -cupy.inf, scores)
    scores -= scores.max(axis=-1, keepdims=True)
    probs = cupy.exp(scores)
    probs /= probs.sum(axis=-1, keepdims=True)
    return cupy.einsum("bhst,tbhd->sbhd", probs, v).reshape(n, b, d)


class SelfAttention:
    """Attention layer whose KV cache lives in pinned host memory
    (FlexGen's `cpu_cache_compute` policy)."""

    def __init__(self, env: CupyEnv, weights, num_heads: int, max_len: int, batch: int, worker: CpuAttentionWorker):
        self.env = env
        self.w_q, self.w_k, self.w_v, self.w_o = (weights[n] for n in ("wq", "wk", "wv", "wo"))
        self.num_heads = num_heads
        d = self.w_q.shape[1]
        self.kv_cache = env.alloc_host((max_len, KV, batch, d))
        self.qkv_host = env.alloc_host((QKV, batch, d))
        self.out_host = env.alloc_host((batch, d))
        with env.device:
            self.out_dev = cupy.empty((batch, d), dtype=self.out_host.dtype)
        self.worker = worker

    def forward_prefill(self, hidden):
        env = self.env
        n = hidden.shape[0]
        with env.compute_stream:
            q = hidden @ self.w_q
            k = hidden @ self.w_k
            v = hidden @ self.w_v
            kv = cupy.stack([k, v], axis=1).astype(self.kv_cache.dtype)
            out = hidden + _gpu_causal_attention(q, k, v, self.num_heads) @ self.w_o
        env.d2h_stream.wait_event(env.mark_compute())
        cupy.asnumpy(kv, stream=env.d2h_stream, out=self.kv_cache[:n], blocking=False)
        env.d2h_stream.synchronize()
        return out

    def forward_decode(self, hidden, pos: int):
        env = self.env
        with env.compute_stream:
            qkv = cupy.stack([hidden @ self.w_q, hidden @ self.w_k, hidden @ self.w_v]).astype(self.qkv_host.dtype)
        env.d2h_stream.wait_event(env.mark_compute())
        qkv.get(stream=env.d2h_stream, out=self.qkv_host, blocking=False)
        job = AttentionJob(self.qkv_host, self.kv_cache, pos, self.out_host, env.d2h_stream.record())
        self.worker.submit(job)
        job.done.wait()

        env.h2d_stream.wait_event(env.mark_compute())
        self.out_dev.set(self.out_host, stream=env.h2d_stream)
        env.compute_stream.wait_event(env.h2d_stream.record())
        with env.compute_stream:
            return hidden + self.out_dev @ self.w_o
